package import Patterns

/// A collection's items as one text, their compact JSON joined as the list's own answer writes them
/// (`[{…},{…}]`), with where each item starts: `q` on many items searches it with one PCRE2 call per match,
/// where a call per item cost more than the work budget on 100,000 items in a debug build (most of it the
/// call's own overhead, not the scan).
///
/// A match is decided from the bytes around it (`Tokens`): one in a key or outside any string does not count;
/// one in a string value of ASCII characters without an escape is the text as the search reads it, so the
/// item passes unread; any other is left to the caller, which reads the item.
///
/// ```swift
/// let text = DocumentSearchText(joined: list.bytes, lengths: documents.map(\.bytes.count))
/// let places = try text?.search(query, meter: &meter) { place in query.searchMatches(documents[place].object) }
/// ```
package struct DocumentSearchText: Sendable {
    /// `[`, the items' JSON separated by commas, `]`.
    private let bytes: [UInt8]
    /// Where each item starts, and after the last one where an item after it would start.
    private let starts: [Int]

    /// The text `joined`, made of items of `lengths` bytes each; nil when `joined` is not that (another state
    /// of the collection than the one `lengths` were read from).
    package init?(joined: [UInt8], lengths: [Int]) {
        var starts = [1]
        starts.reserveCapacity(lengths.count + 1)
        for length in lengths { starts.append(starts[starts.count - 1] + length + 1) }
        guard joined.count == max(2, starts[starts.count - 1]) else { return nil }
        bytes = joined
        self.starts = starts
    }

    /// How many items it holds.
    package var count: Int { starts.count - 1 }

    /// The places of the items that hold the search text of `query` (`q`) in a string value, ignoring case, in
    /// order; nil when the bytes cannot tell (`DocumentQuery.searchPrefilter`). `undecided(place)`: whether an
    /// item whose match the bytes cannot decide passes (the caller reads it). Within `meter`'s budget.
    package func search(
        _ query: DocumentQuery, meter: inout ListQuery.Meter, undecided: (Int) -> Bool
    ) throws(HTTPError) -> [Int]? {
        guard let text = query.searchPrefilter(limits: Self.scanLimits), let tokens = Tokens() else { return nil }
        var found: [Int] = []
        guard count > 0 else { return found }
        var from = 1
        var place = 0
        while from < bytes.count {
            try meter.check()
            let match: (offset: Int, kind: Tokens.Kind)?
            do {
                match = try self.match(text, tokens, from: from, place: &place)
            } catch {
                throw ListQuery.tooExpensive("the search ('q') needs too much work; use a longer text")
            }
            guard let match else { break }
            let next = starts[place + 1]
            switch match.kind {
            case .outside: from = match.offset + 1
            case .key(let end): from = end
            case .value:
                found.append(place)
                from = next
            case .undecided:
                if undecided(place) { found.append(place) }
                from = next
            }
        }
        return found
    }

    /// The next match of `text` from byte `from` and what holds it; `place` becomes the place of its item.
    private func match(_ text: PatternMatcher, _ tokens: Tokens, from: Int, place: inout Int) throws(PatternError)
        -> (offset: Int, kind: Tokens.Kind)?
    {
        guard let match = try text.firstMatch(utf8: bytes, in: from..<bytes.count) else { return nil }
        place = self.place(of: match.lowerBound, after: place)
        let item = starts[place]..<(starts[place + 1] - 1)
        return (match.lowerBound, try tokens.kind(of: match.lowerBound, in: bytes, item: item))
    }

    /// A search of the whole text is one match; its work is bounded by the budget's meter and the text's size
    /// (a literal cannot backtrack), not by the steps a `_like` pattern may take per item.
    private static let scanLimits = PatternLimits(matchLimit: UInt32.max)

    /// The place of the item holding byte `offset`, at or after `first`: the last whose start is not past it.
    private func place(of offset: Int, after first: Int) -> Int {
        var (low, high) = (first, starts.count - 2)
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }
}

/// What holds a match of the search text in an item's compact JSON, told by PCRE2 from the bytes around it
/// (a loop over the bytes in Swift cost more than the match in a debug build).
private struct Tokens {
    enum Kind {
        /// Outside any string (a number, `true`), or in an escape: no match of the text as the search reads it.
        case outside
        /// In a key, which ends at `end`.
        case key(end: Int)
        /// In a string value whose bytes are its text: ASCII without an escape.
        case value
        /// In a string whose bytes may differ from its text (an escape, a non-ASCII character: its case folding
        /// or canonical equivalence may differ from PCRE2's), or past a pattern's limit: the item is read.
        case undecided
    }

    // NB: `(?-i)`: without case folding, which would also take out `k` and `s` with the non-ASCII characters
    // that fold to them. Every pattern is anchored (`\G`) and possessive: one pass, no backtracking.
    /// The bytes before the match end inside a string, after its opening quote only ASCII without an escape.
    private static let plainStringBefore = pattern(#"(?:[^"]++|"(?:[^"\\]++|\\.)*+")*+"[^"\\\x{80}-\x{10ffff}]*+\z"#)
    /// The bytes before the match end inside a string.
    private static let stringBefore = pattern(#"(?:[^"]++|"(?:[^"\\]++|\\.)*+")*+"(?:[^"\\]++|\\.)*+\z"#)
    /// From the match, only ASCII without an escape up to the closing quote, which a colon does not follow.
    private static let plainValueAfter = pattern(#"[^"\\\x{80}-\x{10ffff}]*+"(?!:)"#)
    /// From the match, the rest of a key and its colon.
    private static let keyAfter = pattern(#"(?:[^"\\]++|\\.)*+":"#)

    private static func pattern(_ source: String) -> Pattern? {
        try? Pattern(#"\G(?-i)"# + source, limits: PatternLimits(matchLimit: 1_000_000))
    }

    private let plainStringBefore: PatternMatcher
    private let stringBefore: PatternMatcher
    private let plainValueAfter: PatternMatcher
    private let keyAfter: PatternMatcher

    init?() {
        guard let plainStringBefore = Self.plainStringBefore, let stringBefore = Self.stringBefore,
            let plainValueAfter = Self.plainValueAfter, let keyAfter = Self.keyAfter
        else { return nil }
        self.plainStringBefore = PatternMatcher(plainStringBefore)
        self.stringBefore = PatternMatcher(stringBefore)
        self.plainValueAfter = PatternMatcher(plainValueAfter)
        self.keyAfter = PatternMatcher(keyAfter)
    }

    /// The kind of token of the item at `item` (a range of `bytes`) that holds byte `offset`.
    func kind(of offset: Int, in bytes: [UInt8], item: Range<Int>) throws(PatternError) -> Kind {
        guard item.contains(offset) else { return .outside }
        do {
            if try plainStringBefore.firstMatch(utf8: bytes, in: item.lowerBound..<offset) != nil {
                if try plainValueAfter.firstMatch(utf8: bytes, in: offset..<item.upperBound) != nil { return .value }
            } else if try stringBefore.firstMatch(utf8: bytes, in: item.lowerBound..<offset) == nil {
                return .outside
            }
            if let key = try keyAfter.firstMatch(utf8: bytes, in: offset..<item.upperBound) {
                return .key(end: key.upperBound)
            }
        } catch .limitExceeded {
            return .undecided
        }
        return .undecided
    }
}
