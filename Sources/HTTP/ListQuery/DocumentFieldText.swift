import Patterns
package import StrictJSON

/// One field's values of a collection's items as one text, each value as a filter reads it (JavaScript's
/// `String(value)`) on a line of its own, in the collection's order: `_ne`, `_like` and v1's `:ne`,
/// `:contains`, `:startsWith` and `:endsWith` on 100,000 items are answered by PCRE2 searching the text, one
/// call per match, where a match call per item (and the parse of each item) cost more than the work budget
/// in a debug build.
///
/// Every answer is the one the per-item filter gives (`DocumentQuery.apply`): a value whose text the bytes
/// decide as the filter does (printable ASCII, not a list) is decided by the search; the few others (a line
/// feed, a non-ASCII character, whose case folding and canonical equivalence the filter reads as Swift does,
/// or a list, whose `:contains` looks at its elements) are tested one by one as before (`DocumentQuery+Field`).
///
/// ```swift
/// let text = DocumentFieldText(values: documents.map { $0.object.value(at: ["title"]) })
/// let places = try text.passing(filter, meter: &meter) { documents[$0].object }
/// ```
package struct DocumentFieldText: Sendable {
    /// How a value stands in the text.
    enum Kind: UInt8 {
        /// Missing or null: no filter passes it.
        case absent
        /// Printable ASCII, not a list: its bytes are its text as every filter compares it.
        case plain
        /// Any other value (tested one by one, but by `_like`, which reads the bytes as the filter does).
        case other
    }

    /// A line feed, then each value's text, each after a line feed.
    let text: [UInt8]
    /// Where each value starts, and one past the end of the text (where a value after the last would start).
    let starts: [Int]
    /// Each value's kind.
    let kinds: [Kind]
    /// The places of the values of kind `other`, ascending.
    let others: [Int]
    /// The places of the values whose text holds a line feed, ascending.
    let broken: [Int]

    /// The text of `values` (nil: the item has no value at the field).
    package init(values: [JSONValue?]) {
        var text: [UInt8] = []
        var starts: [Int] = []
        var kinds: [Kind] = []
        var others: [Int] = []
        var broken: [Int] = []
        starts.reserveCapacity(values.count + 1)
        kinds.reserveCapacity(values.count)
        for (place, value) in values.enumerated() {
            text.append(0x0A)
            starts.append(text.count)
            guard let value, value != .null else {
                kinds.append(.absent)
                continue
            }
            let form = value.javaScriptString.utf8
            text.append(contentsOf: form)
            var isArray = false
            if case .array = value { isArray = true }
            let plain = !isArray && form.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
            kinds.append(plain ? .plain : .other)
            if !plain { others.append(place) }
            if !plain, form.contains(0x0A) { broken.append(place) }
        }
        starts.append(text.count + 1)
        self.text = text
        self.starts = starts
        self.kinds = kinds
        self.others = others
        self.broken = broken
    }

    /// How many values it holds.
    package var count: Int { kinds.count }

    /// The end of the value at `place` (the line feed after it, or the end of the text).
    func end(of place: Int) -> Int { starts[place + 1] - 1 }

    /// The value at `place` as its bytes.
    func bytes(of place: Int) -> [UInt8] { Array(text[starts[place]..<end(of: place)]) }

    /// The place of the value holding byte `offset` (a line feed belongs to the value before it), at or after
    /// `first`.
    func place(of offset: Int, after first: Int) -> Int {
        var (low, high) = (first, count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
