import Foundation
import TestSupport
import Testing

@testable import HTTP

/// Routing without a socket: the table decides 404, 405 + Allow, parameters and precedence.
@Suite struct RouterTests {
    private func router() -> Router {
        var router = Router()
        router.get("/todos") { _ in .response(Response(body: Array("list".utf8))) }
        router.post("/todos") { _ in .response(Response(status: 201)) }
        router.get("/todos/:id") { request in
            let id = try request.require("id", as: Int.self)
            return .response(Response(body: Array("todo \(id)".utf8)))
        }
        router.patch("/todos/:id") { _ in .response(Response(status: 200)) }
        router.delete("/todos/:id") { _ in .noContent }
        router.get("/albums/:id") { _ in .response(Response(body: Array("album".utf8))) }
        router.get("/albums/selection") { _ in .response(Response(body: Array("selection".utf8))) }
        router.post("/todos/refresh") { _ in .response(Response(status: 200)) }
        router.get("/files/*rest") { request in .response(Response(body: Array(request.parameters["rest"]!.utf8))) }
        router.get("/boom") { _ in throw CocoaError(.fileNoSuchFile) }
        return router
    }

    @Test func answersTheMatchingRoute() throws {
        let response = try router().handle(Request(.get, "/todos")).immediate()
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "list")
    }

    @Test func matchesAFirstSegmentInAnyCaseOnlyWhenAskedAndPrefersTheExactSpelling() throws {
        var router = router()
        router.get("/Todos") { _ in .response(Response(body: Array("capital".utf8))) }
        #expect(try router.handle(Request(.get, "/TODOS/1")).immediate().status == 404)
        router.ignoresCase = true
        let body = { (path: String) in
            String(decoding: try router.handle(Request(.get, path)).immediate().body, as: UTF8.self)
        }
        #expect(try body("/TODOS/1") == "todo 1")
        #expect(try body("/tOdOs") == "list")
        #expect(try body("/Todos") == "capital")
        #expect(try router.handle(Request(.delete, "/TODOS/1")).immediate().status == 204)
        #expect(router.allowedMethods(for: "/ALBUMS/1") == [.get, .head])
    }

    @Test func capturesTypedPathParameters() throws {
        let response = try router().handle(Request(.get, "/todos/42")).immediate()
        #expect(String(decoding: response.body, as: UTF8.self) == "todo 42")
    }

    @Test func nonNumericIdIsABadRequestNamingTheParameter() throws {
        let response = try router().handle(Request(.get, "/todos/abc")).immediate()
        #expect(response.status == 400)
        let body = try ErrorBody(response)
        #expect(body.error == "invalid_parameter")
        #expect(body.message.contains("'id'"))
    }

    @Test func unknownPathIsNotFoundWithTheContractBody() throws {
        let response = try router().handle(Request(.get, "/nope")).immediate()
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(try ErrorBody(response).error == "not_found")
    }

    @Test(arguments: [
        (HTTPMethod.put, "/todos", "GET, HEAD, POST"),
        (.post, "/todos/1", "GET, HEAD, PATCH, DELETE"),
        (.delete, "/albums/selection", "GET, HEAD"),
        // The literal route owns its path: a GET is not handed to /todos/:id as a bad id.
        (.get, "/todos/refresh", "POST"),
        (.delete, "/todos/refresh", "POST"),
    ])
    func wrongMethodIs405WithAllowFromTheTable(method: HTTPMethod, path: String, allow: String) throws {
        let response = try router().handle(Request(method, path)).immediate()
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == allow)
        #expect(try ErrorBody(response).error == "method_not_allowed")
    }

    @Test func literalSegmentsWinOverParameters() throws {
        let response = try router().handle(Request(.get, "/albums/selection")).immediate()
        #expect(String(decoding: response.body, as: UTF8.self) == "selection")
        let other = try router().handle(Request(.get, "/albums/7")).immediate()
        #expect(String(decoding: other.body, as: UTF8.self) == "album")
    }

    @Test func headIsAnsweredByTheGetRoute() throws {
        #expect(try router().handle(Request(.head, "/todos")).immediate().status == 200)
    }

    @Test func restPatternCapturesTheRemainingPath() throws {
        let response = try router().handle(Request(.get, "/files/a/b.txt")).immediate()
        #expect(String(decoding: response.body, as: UTF8.self) == "a/b.txt")
    }

    @Test func trailingSlashMatchesTheSameRoute() throws {
        #expect(try router().handle(Request(.get, "/todos/")).immediate().status == 200)
    }

    @Test func percentEncodedSegmentsAreDecodedPerSegment() throws {
        var router = Router()
        router.get("/echo/:word") { request in .response(Response(body: Array(request.parameters["word"]!.utf8))) }
        let response = try router.handle(Request(.get, "/echo/a%2Fb%20c")).immediate()
        #expect(String(decoding: response.body, as: UTF8.self) == "a/b c")
    }

    @Test func unexpectedErrorsBecomeA500WithoutDetails() throws {
        let response = try router().handle(Request(.get, "/boom")).immediate()
        #expect(response.status == 500)
        let body = try ErrorBody(response)
        #expect(body.error == "internal_error")
        #expect(!body.message.contains("fileNoSuchFile"))
    }

    @Test func fallbackAnswersUnmatchedGetsOnly() throws {
        var router = router()
        router.fallback = { _ in .response(Response(status: 299)) }
        #expect(try router.handle(Request(.get, "/index.html")).immediate().status == 299)
        #expect(try router.handle(Request(.post, "/index.html")).immediate().status == 404)
    }

    @Test func allowedMethodsComeFromTheMostSpecificPattern() {
        #expect(router().allowedMethods(for: "/todos/refresh") == [.post])
        #expect(router().allowedMethods(for: "/todos/3") == [.get, .head, .patch, .delete])
        #expect(router().allowedMethods(for: "/nope").isEmpty)
    }

    @Test func plainOptionsListsTheAllowedMethods() throws {
        let response = try router().handle(Request(.options, "/todos")).immediate()
        #expect(response.status == 204)
        #expect(response.headers["Allow"] == "GET, HEAD, POST")
    }

    @Test func laterRepliesDeliverTheirResponse() throws {
        var router = Router()
        router.get("/slow") { _ in .later { respond in respond(Response(status: 202)) } }
        #expect(try router.handle(Request(.get, "/slow")).immediate().status == 202)
    }
}
