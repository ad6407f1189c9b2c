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
/// NB: the members are one array of pairs, looked up by a scan while the object is small and through an
/// index of keys once it has more than `indexedCount` members: a data file holds hundreds of thousands of
/// small objects, for which a dictionary per object cost about twice the memory of the object's text.
/// `@frozen` with inlinable reads, because the module is built with library evolution: without them every
/// copy and lookup of a data file's items went through the value witness tables instead of being inlined.
@frozen public struct JSONObject: Sendable, Equatable {
    /// The members in the order written.
    public private(set) var members: [(key: String, value: JSONValue)] = []
    /// Key → position in `members`, kept only for objects of more than `indexedCount` members.
    @usableFromInline var index: [String: Int]?

    /// Objects of at most this many members have no index (a scan of so few keys is as fast).
    @usableFromInline static let indexedCount = 16

    /// An empty object.
    public init() {}

    /// An object of `members`, in that order; a later duplicate key replaces the earlier value in place.
    public init(_ members: KeyValuePairs<String, JSONValue>) {
        for (key, value) in members { self[key] = value }
    }

    /// The position of `key` in `members`, or nil.
    @inlinable func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    /// The value of `key`, or nil. Setting a new key appends it; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        @inlinable get { position(of: key).map { members[$0].value } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    reindex()
                }
            } else if let newValue {
                appendNew(key, newValue)
            }
        }
    }

    /// Appends a member whose key the object does not hold (the parser's path: jansson refused duplicates).
    mutating func appendNew(_ key: String, _ value: JSONValue) {
        members.append((key, value))
        if index != nil {
            index?[key] = members.count - 1
        } else if members.count > Self.indexedCount {
            reindex()
        }
    }

    private mutating func reindex() {
        guard members.count > Self.indexedCount else {
            index = nil
            return
        }
        var keys: [String: Int] = [:]
        keys.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { keys[member.key] = position }
        index = keys
    }

    /// The keys in the order written.
    public var keys: [String] { members.map(\.key) }

    /// How many members it has.
    public var count: Int { members.count }

    /// The same members in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
