import Foundation
package import StrictJSON

extension Request {
    /// Whether the `Content-Type` names JSON (`application/json`, `application/*+json`, any parameters).
    package var hasJSONContentType: Bool {
        guard let mediaType else { return false }
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// The body as a strict JSON object that has no field but `fields`.
    ///
    /// A body whose `Content-Type` is not JSON is a 415; an empty body, anything but strict RFC 8259 JSON
    /// (trailing commas, comments, duplicate keys, `NaN`, leading zeros, a byte-order mark), a body that is
    /// not an object, a field not in `fields` or a number out of range is a 400 whose message names the
    /// field as the client wrote it.
    ///
    /// ```swift
    /// let body = try request.jsonBody(fields: ["title", "completed"])
    /// let title: String = try body.required("title")
    /// ```
    package func jsonBody(fields: [String]) throws(HTTPError) -> JSONBody {
        if !body.isEmpty && !hasJSONContentType { throw HTTPError.unsupportedMediaType }
        guard !body.isEmpty else {
            throw HTTPError.badRequest("this request needs a JSON body", code: "invalid_json")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body, maxDepth: JSONBody.maxDepth, maxValues: JSONBody.maxValues)
        } catch {
            throw HTTPError(parsing: error)
        }
        guard case .object(let object) = value else {
            throw HTTPError.badRequest(
                "the body must be a JSON object, not \(value.kindDescription)", code: "invalid_json")
        }
        for key in object.keys where !fields.contains(key) {
            let known = fields.isEmpty ? "this request takes none" : "the fields are \(fields.joined(separator: ", "))"
            throw HTTPError.badRequest("unknown field '\(JSONBody.quoted(key))'; \(known)", code: "unknown_field")
        }
        return JSONBody(object: object, fields: fields)
    }
}

extension HTTPError {
    /// The 400 for a body StrictJSON refused.
    init(parsing error: JSONParseError) {
        switch error {
        case .invalid(let reason, let message, let line, let column, _):
            let what =
                switch reason {
                case .duplicateKey: "a key appears twice"
                case .prematureEnd: "the JSON ends too early"
                case .trailingContent: "something follows the JSON value"
                case .invalidUTF8: "the body is not valid UTF-8"
                case .nulInKey: "a key holds NUL"
                case .syntax, .other: "it is not strict JSON"
                }
            self = .badRequest(
                "the body is not valid JSON: \(what) (\(message), line \(line), column \(column))", code: "invalid_json"
            )
        case .tooDeep(let limit):
            self = .badRequest("the body nests deeper than \(limit) levels", code: "invalid_json")
        case .tooManyValues(let limit):
            self = .badRequest(
                "the body holds more than \(limit) values; a route takes a few fields", code: "invalid_json")
        case .numberOutOfRange(let path?, let text) where !path.components.isEmpty:
            self = .badRequest(
                "field '\(JSONBody.quoted(path.description))' is out of range: \(JSONBody.quoted(text)) does not fit "
                    + "a 64-bit integer or a double",
                code: "invalid_field")
        case .numberOutOfRange(_, let text):
            self = .badRequest(
                "the body holds a number out of range: \(JSONBody.quoted(text))", code: "invalid_json")
        }
    }
}

extension Request {
    /// The body as a strict JSON object with any members (a data file's schemaless item), under the limits of
    /// `jsonBody(fields:)` but deeper and larger (an item may nest `maxDepth` levels and hold any number of
    /// values the 1 MiB body bound allows): 415 for a body that is not JSON, 400 for one that is not strict
    /// JSON, nests deeper, or is not an object.
    package func jsonObjectBody(maxDepth: Int = 64) throws(HTTPError) -> JSONObject {
        if !body.isEmpty && !hasJSONContentType { throw HTTPError.unsupportedMediaType }
        guard !body.isEmpty else {
            throw HTTPError.badRequest("this request needs a JSON body", code: "invalid_json")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body, maxDepth: maxDepth)
        } catch {
            throw HTTPError(parsing: error)
        }
        guard case .object(let object) = value else {
            throw HTTPError.badRequest(
                "the body must be a JSON object, not \(value.kindDescription)", code: "invalid_json")
        }
        return object
    }
}
