package import StrictJSON

/// A request body read as a strict JSON object, field by field: the one mapping from JSON to a route's
/// input (no `Decodable`, whose Foundation decoder accepts what StrictJSON refuses and names Swift types).
///
/// A field of the wrong type is a 400 naming it as the client wrote it and the JSON kind it needs.
///
/// ```swift
/// let body = try request.jsonBody(fields: ["title", "completed"])
/// let title: String = try body.required("title")
/// let completed: Bool? = try body.optional("completed")
/// ```
package struct JSONBody: Sendable {
    /// How deep a body may nest; no route reads anything below its first level.
    package static let maxDepth = 32
    /// How many values a body may hold (each member and element counts): no route reads more than a few,
    /// and converting a 1 MiB array of numbers to Swift would hold a loop for about 100 ms.
    package static let maxValues = 256

    /// The members as written.
    package let object: JSONObject
    /// The fields the route reads.
    package let fields: [String]

    /// Whether the body names none of the route's fields.
    package var isEmpty: Bool { object.count == 0 }

    /// The value of `name`, or nil when the body does not have it; null or another kind is a 400.
    package func optional<Value: JSONFieldValue>(_ name: String, as _: Value.Type = Value.self) throws(HTTPError)
        -> Value?
    {
        guard let json = object[name] else { return nil }
        guard let value = Value(json: json) else {
            throw HTTPError.badRequest(
                "field '\(name)' must be \(Value.jsonKind), not \(json.kindDescription)", code: "invalid_field")
        }
        return value
    }

    /// The value of `name`; a missing field is a 400 naming it.
    package func required<Value: JSONFieldValue>(_ name: String, as _: Value.Type = Value.self) throws(HTTPError)
        -> Value
    {
        guard let value = try optional(name, as: Value.self) else {
            throw HTTPError.badRequest("missing field '\(name)'", code: "missing_field")
        }
        return value
    }

    /// `text` cut to 64 characters for a message (a client's key or number may be long).
    package static func quoted(_ text: String) -> String {
        text.count > 64 ? String(text.prefix(64)) + "…" : text
    }
}

/// A value a JSON body field can hold, with the JSON kind a message names.
package protocol JSONFieldValue: Sendable {
    /// "a string", "a boolean", "an integer".
    static var jsonKind: String { get }
    /// The value, or nil when `json` is another kind.
    init?(json: JSONValue)
}

extension String: JSONFieldValue {
    package static var jsonKind: String { "a string" }

    package init?(json: JSONValue) {
        guard case .string(let value) = json else { return nil }
        self = value
    }
}

extension Bool: JSONFieldValue {
    package static var jsonKind: String { "a boolean" }

    package init?(json: JSONValue) {
        guard case .bool(let value) = json else { return nil }
        self = value
    }
}

extension Int: JSONFieldValue {
    package static var jsonKind: String { "an integer" }

    /// Only a number written as an integer: `42.0` and `4.2e1` are reals, as the client wrote them.
    package init?(json: JSONValue) {
        guard case .integer(let value) = json, let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}
