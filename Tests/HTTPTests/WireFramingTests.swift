import Testing

@testable import HTTP

/// Transfer codings, Host and HEAD bodies, on the parsed request.
@Suite struct WireFramingTests {
    @Test(arguments: ["identity", "xchunked", "gzip", "chunked, identity", "gzip, chunked"])
    func unknownCodingIs501(_ coding: String) {
        let error = Request(.post, "/todos", headers: ["Host": "x", "Transfer-Encoding": coding])
            .wireFramingError(isHTTP11: true)
        #expect(error?.status == 501)
        #expect(error?.headers["Connection"] == "close")
    }

    @Test func hostRules() {
        #expect(Request(.get, "/").wireFramingError(isHTTP11: true)?.status == 400)
        var two = HTTPHeaders()
        two.add("Host", "a")
        two.add("host", "b")
        #expect(Request(.get, "/", headers: two).wireFramingError(isHTTP11: true)?.status == 400)
        #expect(Request(.get, "/", headers: ["Host": "x"]).wireFramingError(isHTTP11: true) == nil)
        #expect(Request(.get, "/").wireFramingError(isHTTP11: false) == nil)
        #expect(
            Request(.post, "/", headers: ["Transfer-Encoding": "chunked"]).wireFramingError(isHTTP11: false)?.status
                == 400)
    }

    @Test func headWithABodyIs400() {
        #expect(Request(.head, "/", headers: ["Content-Length": "38"]).framingError?.status == 400)
        #expect(Request(.head, "/", headers: ["Transfer-Encoding": "chunked"]).framingError?.status == 400)
        #expect(Request(.head, "/", headers: ["Content-Length": "0"]).framingError == nil)
    }
}
