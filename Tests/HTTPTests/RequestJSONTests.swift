import Testing

@testable import HTTP

/// `Request.jsonBody`: 415 for bodies that are not JSON, 400 for anything but a strict JSON object of the
/// route's fields, naming the field as the client wrote it.
@Suite struct RequestJSONTests {
    private static let fields = ["title", "completed"]

    private func request(_ body: String, contentType: String? = "application/json") -> Request {
        var headers = HTTPHeaders()
        if let contentType { headers["Content-Type"] = contentType }
        return Request(.post, "/todos", headers: headers, body: Array(body.utf8))
    }

    /// The error the body gets, or nil.
    private func refusal(_ body: String, read: (JSONBody) throws(HTTPError) -> Void = { _ in }) -> HTTPError? {
        do {
            try read(try request(body).jsonBody(fields: Self.fields))
            return nil
        } catch {
            return error
        }
    }

    @Test func readsTheFieldsOfAJSONObject() throws {
        let body = try request(#"{"title":"Walk the dog","completed":true}"#).jsonBody(fields: Self.fields)
        #expect(try body.required("title", as: String.self) == "Walk the dog")
        #expect(try body.optional("completed", as: Bool.self) == true)
    }

    @Test(arguments: ["application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"])
    func acceptsJSONMediaTypes(contentType: String) throws {
        let body = try request(#"{"title":"x"}"#, contentType: contentType).jsonBody(fields: Self.fields)
        #expect(try body.required("title", as: String.self) == "x")
    }

    /// An empty value, or one that is only parameters, names no media type (the empty one once crashed: fuzz).
    @Test(arguments: [
        Optional("text/plain"), "application/x-www-form-urlencoded", nil, "", " ", ";", "; charset=utf-8",
    ])
    func nonJSONContentTypeIs415(contentType: String?) {
        #expect(throws: HTTPError.unsupportedMediaType) {
            try request(#"{"title":"x"}"#, contentType: contentType).jsonBody(fields: Self.fields)
        }
    }

    /// Each is what RFC 8259 (or the contract) refuses and Foundation's decoder took.
    @Test(arguments: [
        #"{"title":"a title",}"#, #"{"title":"a","title":"b"}"#, #"{"title":"x" /* c */}"#, #"{"title":NaN}"#,
        #"{"completed":01}"#, "\u{FEFF}{\"title\":\"x\"}", #"{"title":"#, "", #"{"title":"x"} {}"#,
    ])
    func bodiesThatAreNotStrictJSONAre400InvalidJSON(body: String) {
        let error = refusal(body)
        #expect(error?.status == 400)
        #expect(error?.code == "invalid_json")
    }

    @Test func aDuplicateKeySaysSo() {
        #expect(refusal(#"{"title":"a","title":"b"}"#)?.message.contains("a key appears twice") == true)
    }

    @Test(arguments: [("[]", "an array"), ("\"x\"", "a string"), ("42", "an integer"), ("null", "null")])
    func aBodyThatIsNotAnObjectSaysWhatItIs(body: String, kind: String) {
        #expect(refusal(body) == .badRequest("the body must be a JSON object, not \(kind)", code: "invalid_json"))
    }

    @Test func anUnknownFieldIs400NamingItAsWritten() {
        #expect(
            refusal(#"{"title":"x","Completed":true}"#)
                == .badRequest("unknown field 'Completed'; the fields are title, completed", code: "unknown_field"))
    }

    @Test func missingFieldIs400NamingIt() {
        #expect(
            refusal(#"{"completed":true}"#) { body throws(HTTPError) in _ = try body.required("title", as: String.self)
            }
                == .badRequest("missing field 'title'", code: "missing_field"))
    }

    @Test(arguments: [
        (#"{"completed":"yes"}"#, "field 'completed' must be a boolean, not a string"),
        (#"{"completed":null}"#, "field 'completed' must be a boolean, not null"),
        (#"{"completed":1}"#, "field 'completed' must be a boolean, not an integer"),
        (#"{"title":["x"]}"#, "field 'title' must be a string, not an array"),
    ])
    func wrongTypeIs400NamingTheField(body: String, message: String) {
        let error = refusal(body) { body throws(HTTPError) in
            _ = try body.optional("title", as: String.self)
            _ = try body.optional("completed", as: Bool.self)
        }
        #expect(error == .badRequest(message, code: "invalid_field"))
    }

    @Test(arguments: [#"{"title":42.5}"#, #"{"title":42.0}"#, #"{"title":4e1}"#])
    func anIntegerFieldRefusesAReal(body: String) {
        let error = refusal(body) { body throws(HTTPError) in _ = try body.optional("title", as: Int.self) }
        #expect(
            error
                == .badRequest(
                    "field 'title' must be an integer, not a number with a fraction or exponent", code: "invalid_field")
        )
    }

    @Test func anIntegerOutOfRangeIs400NamingTheField() {
        let error = refusal(#"{"title":"x","completed":9223372036854775808}"#)
        #expect(error?.code == "invalid_field")
        #expect(error?.message.hasPrefix("field 'completed' is out of range: 9223372036854775808") == true)
    }

    @Test func keepsNULInAString() throws {
        let body = try request(#"{"title":"abc\u0000def"}"#).jsonBody(fields: Self.fields)
        #expect(try body.required("title", as: String.self) == "abc\u{0}def")
    }

    @Test func noMessageNamesASwiftType() {
        let bodies = [
            "[]", "{}", #"{"title":1}"#, #"{"completed":"x"}"#, #"{"x":1}"#, "1e999", #"{"title":1e999}"#, "[[[[",
        ]
        for body in bodies {
            let message =
                refusal(body) { body throws(HTTPError) in
                    _ = try body.required("title", as: String.self)
                    _ = try body.optional("completed", as: Bool.self)
                }?.message ?? ""
            for typeName in ["Dictionary", "Array<", "String", "Bool", "Int", "Optional", "Double", "Any"] {
                #expect(!message.contains(typeName), "\(body) → \(message)")
            }
        }
    }
}
