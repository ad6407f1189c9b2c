import Foundation

extension Request {
    /// Whether the `Content-Type` names JSON (`application/json`, `application/*+json`, any parameters).
    package var hasJSONContentType: Bool {
        guard let contentType = headers["Content-Type"] else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1)[0]
            .trimmingCharacters(in: .whitespaces).lowercased()
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    /// Decodes the body as JSON.
    ///
    /// A body whose `Content-Type` is not JSON is a 415; an empty body, malformed JSON, a missing
    /// field or a field of the wrong type is a 400 whose message names the field.
    ///
    /// ```swift
    /// let input = try request.decode(NewTodo.self)
    /// ```
    package func decode<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        if !body.isEmpty && !hasJSONContentType { throw HTTPError.unsupportedMediaType }
        guard !body.isEmpty else {
            throw HTTPError.badRequest("this request needs a JSON body", code: "invalid_json")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw HTTPError(decoding: error)
        } catch {
            throw HTTPError.badRequest("the body is not valid JSON", code: "invalid_json")
        }
    }
}

extension HTTPError {
    /// A 400 that names the key path a `DecodingError` points at.
    package init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (last.map { [$0] } ?? [])
            return keys.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
                .joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            self = .badRequest("missing field '\(path(context.codingPath, key))'", code: "missing_field")
        case .typeMismatch(let type, let context):
            self = .badRequest(
                "field '\(path(context.codingPath))' must be \(Self.jsonTypeName(type))", code: "invalid_field")
        case .valueNotFound(let type, let context):
            self = .badRequest(
                "field '\(path(context.codingPath))' must be \(Self.jsonTypeName(type)), not null",
                code: "invalid_field")
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            self = .badRequest("field '\(path(context.codingPath))' has an invalid value", code: "invalid_field")
        default:
            self = .badRequest("the body is not valid JSON", code: "invalid_json")
        }
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type, is Substring.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default: String(describing: type)
        }
    }
}
