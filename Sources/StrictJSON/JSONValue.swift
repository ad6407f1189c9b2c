/// A JSON value as the client wrote it: integers apart from reals, object members in their order.
///
/// ```swift
/// let value = try JSONValue(parsing: Array(#"{"id": 42, "ratio": 0.5}"#.utf8))
/// value["id"]  // .integer(42)
/// ```
@frozen public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent; one outside `Int64` is a parse error, never rounded.
    case integer(Int64)
    /// A number written with a fraction or an exponent (`1.0`, `1e3`).
    case real(Double)
    /// A string; it may hold NUL (`"\u0000"`) and any other scalar.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: keys unique (a duplicate is a parse error), in the order written.
    case object(JSONObject)

    /// The member `key` of an object, or nil (also when this is not an object).
    @inlinable public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The JSON kind, as a message to a client names it: "an object", "a string", "an integer", ….
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer: "an integer"
        case .real: "a number with a fraction or exponent"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// The members of a JSON object, in the order written, with unique keys.
///
/// NB: `@frozen` with an inlinable read, because the module is built with library evolution: without them
/// every copy and lookup of a data file's items (thousands per filtered request) went through the value
/// witness tables instead of being inlined.
@frozen public struct JSONObject: Sendable, Equatable {
    /// The keys in the order written.
    public private(set) var keys: [String] = []
    @usableFromInline var values: [String: JSONValue] = [:]

    /// An empty object.
    public init() {}

    /// An object of `members`, in that order; a later duplicate key replaces the earlier value in place.
    public init(_ members: KeyValuePairs<String, JSONValue>) {
        for (key, value) in members { self[key] = value }
    }

    /// The value of `key`, or nil. Setting a new key appends it; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        @inlinable get { values[key] }
        set {
            if newValue == nil {
                keys.removeAll { $0 == key }
            } else if values[key] == nil {
                keys.append(key)
            }
            values[key] = newValue
        }
    }

    /// The members in the order written.
    public var members: [(key: String, value: JSONValue)] {
        keys.map { ($0, values[$0]!) }
    }

    /// How many members it has.
    public var count: Int { keys.count }
}
