import Testing

@testable import HTTP

/// `Request.decode`: 415 for bodies that are not JSON, 400 naming the field for bad JSON.
@Suite struct RequestJSONTests {
    private struct NewTodo: Decodable, Equatable {
        var title: String
        var completed: Bool?
    }

    private func request(_ body: String, contentType: String? = "application/json") -> Request {
        var headers = HTTPHeaders()
        if let contentType { headers["Content-Type"] = contentType }
        return Request(.post, "/todos", headers: headers, body: Array(body.utf8))
    }

    @Test func decodesAJSONBody() throws {
        let todo = try request(#"{"title":"Walk the dog"}"#).decode(NewTodo.self)
        #expect(todo == NewTodo(title: "Walk the dog", completed: nil))
    }

    @Test(arguments: ["application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"])
    func acceptsJSONMediaTypes(contentType: String) throws {
        #expect(try request(#"{"title":"x"}"#, contentType: contentType).decode(NewTodo.self).title == "x")
    }

    @Test(arguments: [Optional("text/plain"), "application/x-www-form-urlencoded", nil])
    func nonJSONContentTypeIs415(contentType: String?) {
        #expect(throws: HTTPError.unsupportedMediaType) {
            try request(#"{"title":"x"}"#, contentType: contentType).decode(NewTodo.self)
        }
    }

    @Test func malformedJSONIs400() {
        #expect(throws: HTTPError.badRequest("the body is not valid JSON", code: "invalid_json")) {
            try request(#"{"title":"#).decode(NewTodo.self)
        }
    }

    @Test func missingFieldIs400NamingIt() {
        #expect(throws: HTTPError.badRequest("missing field 'title'", code: "missing_field")) {
            try request(#"{"completed":true}"#).decode(NewTodo.self)
        }
    }

    @Test func wrongTypeIs400NamingTheField() {
        #expect(throws: HTTPError.badRequest("field 'completed' must be a boolean", code: "invalid_field")) {
            try request(#"{"title":"x","completed":"yes"}"#).decode(NewTodo.self)
        }
    }

    @Test func emptyBodyIs400() {
        #expect(throws: HTTPError.self) { try request("").decode(NewTodo.self) }
    }
}
