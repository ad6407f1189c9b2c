/// The query string as ordered name/value pairs, percent-decoded (`+` is a space).
///
/// ```swift
/// let query = QueryParameters(parsing: "albumId=3&albumId=4&q=sun")
/// query["q"]              // "sun"
/// query.all("albumId")    // ["3", "4"]
/// ```
package struct QueryParameters: Sendable, Equatable, Sequence {
    /// The pairs in the order they appear in the URL.
    package let pairs: [(name: String, value: String)]

    package init(_ pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    /// Parses a raw query string (without the `?`); malformed escapes are kept as written.
    package init(parsing raw: Substring) {
        var pairs: [(name: String, value: String)] = []
        for item in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(parts[0], plusIsSpace: true)
            let value = parts.count > 1 ? PercentDecoding.decode(parts[1], plusIsSpace: true) : ""
            pairs.append((name, value))
        }
        self.pairs = pairs
    }

    /// The first value of `name`.
    package subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    package func all(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// The distinct names, in order of first appearance.
    package var names: [String] {
        var seen = Set<String>()
        return pairs.compactMap { seen.insert($0.name).inserted ? $0.name : nil }
    }

    package var isEmpty: Bool { pairs.isEmpty }

    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        pairs.makeIterator()
    }

    package static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0 == $1 }
    }
}
