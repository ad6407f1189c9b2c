import Bitsets
package import StrictJSON

/// A collection's string values as one text, each item's strings (at any depth, keys left out) on a line of
/// their own, lowercased as JavaScript lowercases them (`JavaScriptCase`): `q` on many items finds the items
/// holding the lowercased search text's bytes, in one pass in C (`ByteText`), where reading each item cost more
/// than the work budget on 100,000 items in a debug build.
///
/// Every item is decided by its bytes, as json-server decides it (`value.toString().toLowerCase().indexOf(q)`
/// compares code units: no canonical equivalence), except for a search text with a NUL, which separates the
/// strings in the text, and one with a line feed, which ends an item's line: these are read in the items holding
/// a character that is not printable ASCII (and for a line feed, whose bytes hold the text).
///
/// ```swift
/// let text = DocumentSearchText(objects: documents.lazy.map(\.object))
/// let places = try text.search(query, meter: &meter) { place in query.searchMatches(documents[place].object) }
/// ```
package struct DocumentSearchText: Sendable {
    /// Each item's strings lowercased, each after a NUL, and a line feed after the item.
    private let text: [UInt8]
    /// Where each item starts, and after the last one where an item after it would start.
    private let starts: [Int]
    /// Whether each item holds a string that is not printable ASCII.
    private let others: [Bool]

    /// The text of the string values of `objects`, in order.
    package init(objects: some Sequence<JSONObject>) {
        var text: [UInt8] = []
        var starts: [Int] = [0]
        var others: [Bool] = []
        for object in objects {
            var plain = true
            for member in object.members { Self.append(member.value, to: &text, plain: &plain) }
            text.append(0x0A)
            starts.append(text.count)
            others.append(!plain)
        }
        (self.text, self.starts) = JavaScriptCase.lowercased(segments: text, starts: starts)
        self.others = others
    }

    /// The text of the string values `strings` holds (`CompactStringValues`): the same text as
    /// `init(objects:)` makes of the objects, read from their bytes.
    package init(strings: CompactStringValues) {
        (text, starts) = JavaScriptCase.lowercased(segments: strings.text, starts: strings.starts)
        others = strings.others
    }

    /// The text of the string values of the objects written as `compact` (`JSONObject.compactBytes` each),
    /// read from their bytes in C (`CompactStringValues`).
    package init(compact: [[UInt8]]) {
        // NB: plain loops, not `joined` or `enumerated`, which cost several times more in a debug build.
        var total = 2
        for bytes in compact { total += bytes.count + 1 }
        var list: [UInt8] = []
        list.reserveCapacity(total)
        list.append(UInt8(ascii: "["))
        for bytes in compact {
            list.append(contentsOf: bytes)
            list.append(UInt8(ascii: ","))
        }
        if compact.isEmpty { list.append(UInt8(ascii: "]")) } else { list[list.count - 1] = UInt8(ascii: "]") }
        guard let strings = CompactStringValues(list: list, count: compact.count) else {
            preconditionFailure("an item's compact bytes are the writer's JSON of an object")
        }
        self.init(strings: strings)
    }

    /// The items of `parts` one after another, each part the items `range` of a text: a collection's text made
    /// from the text of an earlier state and a text of the items written since (`DocumentSearchIndex`), copying
    /// bytes rather than reading every item again.
    package init(joining parts: [(text: DocumentSearchText, range: Range<Int>)]) {
        var total = 0
        var count = 0
        for (text, range) in parts {
            total += text.starts[range.upperBound] - text.starts[range.lowerBound]
            count += range.count
        }
        var joined: [UInt8] = []
        joined.reserveCapacity(total)
        var starts: [Int] = [0]
        starts.reserveCapacity(count + 1)
        var others: [Bool] = []
        others.reserveCapacity(count)
        for (text, range) in parts where !range.isEmpty {
            let (from, to) = (text.starts[range.lowerBound], text.starts[range.upperBound])
            let shift = joined.count - from
            joined.append(contentsOf: text.text[from..<to])
            // NB: a plain loop: a lazy map's iterator looks up generic metadata per item in a debug build.
            var index = range.lowerBound + 1
            while index <= range.upperBound {
                starts.append(text.starts[index] + shift)
                index += 1
            }
            others.append(contentsOf: text.others[range])
        }
        self.text = joined
        self.starts = starts
        self.others = others
    }

    /// How many items it holds.
    package var count: Int { others.count }

    /// Whether `search` answers `query`'s search text (`q`): any text but the empty one.
    package static func answers(_ query: DocumentQuery) -> Bool {
        guard let search = query.search else { return false }
        return !search.isEmpty
    }

    /// The places of the items that hold the search text of `query` (`q`) in a string value, ignoring case, in
    /// order; nil when it does not answer it (`answers`). `undecided(place)`: whether an item the text cannot
    /// decide passes (the caller reads it). Within `meter`'s budget.
    package func search(
        _ query: DocumentQuery, meter: inout ListQuery.Meter, undecided: (Int) -> Bool
    ) throws(HTTPError) -> [Int]? {
        guard Self.answers(query), let search = query.search else { return nil }
        let needle = Array(search.utf8)
        var found: [Int] = []
        if needle.contains(0) {
            // NB: a NUL separates the strings in the text, so a match may run across two; only a string that
            // is not printable ASCII holds one.
            for place in 0..<count where others[place] {
                try meter.check()
                if undecided(place) { found.append(place) }
            }
            return found
        }
        try meter.check()
        // NB: the text's bytes, one pass in C; its work is bounded by the text's size.
        let holding = ByteText.segments(holding: needle, in: text, starts: starts)
        guard needle.contains(0x0A) else { return holding }
        // A line feed also ends each item's line, so a match may end past an item's last string; only a string
        // that is not printable ASCII holds one.
        for place in holding where others[place] {
            try meter.check()
            if undecided(place) { found.append(place) }
        }
        return found
    }

    /// Appends the strings of `value`, each after a NUL (which no search text of printable ASCII holds, so a
    /// match lies within one string); `plain` becomes false at one that is not printable ASCII.
    private static func append(_ value: JSONValue, to text: inout [UInt8], plain: inout Bool) {
        switch value {
        case .string(let string):
            text.append(0)
            let start = text.count
            text.append(contentsOf: string.utf8)
            if plain && !text[start...].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { plain = false }
        case .array(let elements): for element in elements { append(element, to: &text, plain: &plain) }
        case .object(let object): for member in object.members { append(member.value, to: &text, plain: &plain) }
        default: break
        }
    }

}
