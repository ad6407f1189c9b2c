/// Ordered header fields with case-insensitive names, as HTTP defines them.
///
/// ```swift
/// var headers = HTTPHeaders()
/// headers["Content-Type"] = "application/json"
/// headers["content-type"]  // "application/json"
/// ```
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were added, names as written.
    private(set) var fields: [(name: String, value: String)] = []

    package init() {}

    package init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// The first value of `name`; setting replaces every field of that name (nil removes them).
    package subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
            if let newValue { fields.append((name, newValue)) }
        }
    }

    /// Every value of `name`, in order.
    package func all(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Appends a field, keeping any earlier one of the same name.
    package mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// How many fields of that name there are (no array made).
    package func count(of name: String) -> Int {
        var count = 0
        for field in fields where field.name.caseInsensitiveEquals(name) { count += 1 }
        return count
    }

    /// The values of `name` joined with commas, as one field (RFC 9110 5.3); nil when there is none. A single
    /// field is returned as it is, without an array.
    package func combined(_ name: String) -> String? {
        var combined: String?
        for field in fields where field.name.caseInsensitiveEquals(name) {
            combined = combined.map { $0 + "," + field.value } ?? field.value
        }
        return combined
    }

    /// Whether a field of that name exists.
    package func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// Whether both hold the very same storage (copies of one value never changed since): equal, checked
    /// without comparing a byte.
    package func isSameStorage(as other: HTTPHeaders) -> Bool {
        fields.withUnsafeBufferPointer { mine in
            other.fields.withUnsafeBufferPointer { theirs in
                mine.count == theirs.count && mine.baseAddress == theirs.baseAddress
            }
        }
    }

    /// Whether these are `other`'s fields followed by one more, `name: value` (a prepared answer that CORS
    /// gave its `Vary: Origin`).
    package func equals(_ other: HTTPHeaders, plus name: String, _ value: String) -> Bool {
        guard fields.count == other.fields.count + 1, let last = fields.last, last.name == name, last.value == value
        else { return false }
        return fields.dropLast().elementsEqual(other.fields) {
            $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value
        }
    }

    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    package static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value }
    }
}

extension String {
    /// ASCII case-insensitive comparison, enough for header names and media types.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { $0.asciiLowercased == $1.asciiLowercased }
    }
}

extension UInt8 {
    /// The byte lowercased if it is an ASCII capital letter.
    package var asciiLowercased: UInt8 { (65...90).contains(self) ? self + 32 : self }
}
