import TestSupport
import Testing

@testable import HTTP

/// Ambiguous body framing (request smuggling material) is refused with 400 and `Connection: close`.
@Suite struct RequestFramingTests {
    @Test(arguments: [
        ["Content-Length": "+5"], ["Content-Length": "-1"], ["Content-Length": "5 5"], ["Content-Length": "0x10"],
        ["Content-Length": ""], ["Content-Length": "5, 6"],
    ])
    func refusesMalformedContentLength(_ headers: [String: String]) throws {
        try expectRefused(headers: HTTPHeaders(headers.map { ($0.key, $0.value) }))
    }

    @Test func refusesConflictingContentLengths() throws {
        var headers = HTTPHeaders()
        headers.add("Content-Length", "5")
        headers.add("Content-Length", "6")
        try expectRefused(headers: headers)
    }

    @Test func refusesContentLengthWithTransferEncoding() throws {
        try expectRefused(headers: ["Content-Length": "5", "Transfer-Encoding": "chunked"])
    }

    @Test func acceptsRepeatedEqualLengthsAndPlainOnes() throws {
        var headers = HTTPHeaders()
        headers.add("Content-Length", "5")
        headers.add("Content-Length", "005")
        #expect(Request(.post, "/todos", headers: headers).framingError == nil)
        #expect(Request(.post, "/todos", headers: ["Content-Length": "17"]).framingError == nil)
        #expect(Request(.get, "/todos").framingError == nil)
        #expect(Request(.post, "/todos", headers: ["Transfer-Encoding": "chunked"]).framingError == nil)
    }

    private func expectRefused(headers: HTTPHeaders) throws {
        var router = Router()
        router.post("/todos") { _ in .response(Response(status: 201)) }
        let response = try HTTPService(router: router).respond(to: Request(.post, "/todos", headers: headers))
            .immediate()
        #expect(response.status == 400)
        #expect(response.headers["Connection"] == "close")
        #expect(try ErrorBody(response).error == "bad_request")
    }
}

extension HTTPHeaders {
    fileprivate init(_ pairs: [(String, String)]) {
        self.init()
        for (name, value) in pairs { add(name, value) }
    }
}
