import Testing

@testable import HTTP

/// Headers, query strings and errors as values.
@Suite struct HTTPValueTests {
    @Test func headerNamesAreCaseInsensitive() {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "a"
        headers["content-type"] = "b"
        #expect(headers["CONTENT-TYPE"] == "b")
        #expect(headers.fields.count == 1)
    }

    @Test func queryKeepsOrderAndRepeatsAndDecodes() {
        let request = Request(.get, "/albums?albumId=3&q=sun+rise&albumId=4&x=%2E%2E%2F")
        #expect(request.path == "/albums")
        #expect(request.query["q"] == "sun rise")
        #expect(request.query.all("albumId") == ["3", "4"])
        #expect(request.query["x"] == "../")
        #expect(request.query.names == ["albumId", "q", "x"])
    }

    @Test func pathIsPercentDecodedAndRawPathKept() {
        let request = Request(.get, "/a%20b/%2e%2e?z=1")
        #expect(request.path == "/a b/..")
        #expect(request.rawPath == "/a%20b/%2e%2e")
    }

    @Test func errorsRenderTheContractBody() throws {
        let response = Response(error: HTTPError(422, "title_too_short", "a title needs more than 3 characters"))
        #expect(response.status == 422)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":"title_too_short","message":"a title needs more than 3 characters"}"#)
    }

    @Test func jsonResponsesCarryTheUTF8ContentTypeAndUnescapedSlashes() throws {
        let response = try Response.json(["url": "https://x/y"], status: 201)
        #expect(response.status == 201)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"url":"https://x/y"}"#)
    }
}
