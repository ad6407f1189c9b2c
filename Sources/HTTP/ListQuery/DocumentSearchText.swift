package import Patterns
package import StrictJSON

/// A collection's string values as one text, each item's strings (at any depth, keys left out) on a line of
/// their own: `q` on many items searches it with PCRE2, one match per item that holds the text, in a loop in C
/// (`PatternMatcher.findSegments`), where a match call per item, or per match in the items' JSON (a key most
/// items hold matched in each), cost more than the work budget on 100,000 items in a debug build.
///
/// An item whose strings are all printable ASCII is decided by the search (its bytes are its text as the
/// search reads it, `"` and `\` too); an item with another character (whose case folding or canonical
/// equivalence may differ from PCRE2's) is read by the caller when the search finds the text in it, and for
/// a search text beyond ASCII, which no ASCII string holds, only those items are read.
///
/// ```swift
/// let text = DocumentSearchText(objects: documents.lazy.map(\.object))
/// let places = try text.search(query, meter: &meter) { place in query.searchMatches(documents[place].object) }
/// ```
package struct DocumentSearchText: Sendable {
    /// Each item's strings, each after a NUL, and a line feed after the item.
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
        self.text = text
        self.starts = starts
        self.others = others
    }

    /// The text of the string values `strings` holds (`CompactStringValues`): the same text as
    /// `init(objects:)` makes of the objects, read from their bytes.
    package init(strings: CompactStringValues) {
        text = strings.text
        starts = strings.starts
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

    /// How many items it holds.
    package var count: Int { others.count }

    /// Whether `search` answers `query`'s search text (`q`): printable ASCII, text whose canonical
    /// decomposition holds a character beyond ASCII, or text with a control character (both found only in the
    /// items holding a string that is not printable ASCII).
    package static func answers(_ query: DocumentQuery) -> Bool {
        guard let search = query.search, !search.isEmpty else { return false }
        return search.isPlain || search.isBeyondASCII || search.hasControl
    }

    /// The places of the items that hold the search text of `query` (`q`) in a string value, ignoring case, in
    /// order; nil when it does not answer it (`answers`). `undecided(place)`: whether an item the text cannot
    /// decide passes (the caller reads it). Within `meter`'s budget.
    package func search(
        _ query: DocumentQuery, meter: inout ListQuery.Meter, undecided: (Int) -> Bool
    ) throws(HTTPError) -> [Int]? {
        guard Self.answers(query), let search = query.search else { return nil }
        var found: [Int] = []
        guard search.isPlain else {
            // NB: no string of printable ASCII characters holds it, nor a canonical equivalent of it.
            for place in 0..<count where others[place] {
                try meter.check()
                if undecided(place) { found.append(place) }
            }
            return found
        }
        guard let pattern = try? Pattern(DocumentQuery.literal(search), limits: Self.scanLimits) else { return nil }
        try meter.check()
        let matches = PatternMatcher(pattern).findSegments(utf8: text, starts: starts, segments: 0..<count)
        if matches.stopped != nil {
            throw ListQuery.tooExpensive("the search ('q') needs too much work; use a longer text")
        }
        found.reserveCapacity(matches.found.count)
        for place in matches.found {
            if others[place] {
                try meter.check()
                if !undecided(place) { continue }
            }
            found.append(place)
        }
        return found
    }

    /// A search of the whole text is one match per item at most; its work is bounded by the text's size (a
    /// literal cannot backtrack), not by the steps a `_like` pattern may take per item.
    private static let scanLimits = PatternLimits(matchLimit: UInt32.max)

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
