import StrictJSON

/// A top-level member of a data file that holds no items, kept as its compact JSON and written back as it
/// was read: a value resource (an array whose elements are not all objects, `"tags": ["a", "b"]`), served
/// read-only, or json-server's `$schema` line, not served at all.
///
/// ```swift
/// let tags = DataFileValue(name: "tags", value: .array([.string("a"), .string("b")]))
/// tags.bytes              // ["a","b"]
/// tags.elements.count     // 2
/// ```
struct DataFileValue: Sendable, Equatable {
    /// The key json-server 0.17 skips: an editor's JSON Schema reference
    /// (`"$schema": "./node_modules/json-server/schema.json"`), not a resource.
    static let schemaKey = "$schema"

    /// The member's key.
    var name: String
    /// The value as one line of JSON (`JSONValue.compactBytes`).
    var bytes: [UInt8]
    /// Each element's compact JSON when the value is an array (a value resource's slices are made of them);
    /// empty otherwise.
    var elements: [[UInt8]]

    /// `value` kept under `name`.
    init(name: String, value: JSONValue) {
        self.name = name
        bytes = value.compactBytes
        if case .array(let members) = value { elements = members.map(\.compactBytes) } else { elements = [] }
    }

    /// Whether it is a value resource, served at `/name` (`$schema` is not).
    var isServed: Bool { name != Self.schemaKey }

    /// `elements` (some of a value's) as one JSON array.
    static func array(_ elements: some Collection<[UInt8]>) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, element) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: element)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
