import Bitsets
import Patterns
package import StrictJSON

extension DocumentFieldText {
    /// Whether `passing` can answer `filter`: `_ne`, `:ne`, `:in`, `:contains`, `:startsWith` and `:endsWith`
    /// with any values; `_like` with patterns whose matches do not depend on the text around a value (no
    /// lookaround, `\A`, `\z`, `\G`, `\K`, option setting, verbs, atomic groups or possessive repeats), which
    /// a search of the joined values finds wherever a match of the value alone is.
    package static func answers(_ filter: DocumentQuery.Filter) -> Bool {
        switch filter.operator {
        case .equal, .notEqual, .oneOf, .contains, .startsWith, .endsWith: return true
        case .like: return filter.values.allSatisfy(isJoinable)
        default: return false
        }
    }

    /// Whether each item passes `filter` (one `answers` takes), by place, within `meter`'s budget;
    /// `object(place)` reads the item at a place, for a list's `:contains`, which the text does not decide.
    package func passing(
        _ filter: DocumentQuery.Filter, meter: inout ListQuery.Meter, object: (Int) -> JSONObject
    ) throws(HTTPError) -> [Bool] {
        // NB: the distinct values are marked first, then each item takes its value's mark.
        var marked = [Bool](repeating: false, count: distinctCount)
        if filter.operator == .like {
            for (source, pattern) in zip(filter.values, filter.patterns) {
                try like(source, PatternMatcher(pattern), filter.name, into: &marked, meter: &meter)
            }
        } else {
            // NB: `:in` takes each value's comma-separated parts, empty ones left out, as the filter does.
            let values = filter.operator == .oneOf ? filter.values.flatMap(\.commaParts) : filter.values
            for value in Set(values.map { Array($0.utf8) }) {
                try mark(filter.operator, value, into: &marked, meter: &meter)
            }
            if filter.operator == .notEqual { Bitset.invert(&marked) }
        }
        // NB: each item takes its value's mark in C (`Bitset`): the same loop cost 10-20 ms in a debug build.
        var passing = Bitset(values: values, marked: marked).flags
        if filter.operator == .contains {
            for item in lists {
                try meter.check()
                passing[item] = try DocumentQuery.passes(object(item), filter, [])
            }
        }
        return passing
    }

    /// Marks the values equal to `value` (UTF-8; `_ne`: the ones it leaves out) by the bytes of the text, or
    /// that contain, start or end with it, both lowercased as JavaScript lowercases, by the bytes of `lower`:
    /// one pass over the text in C.
    func mark(
        _ operation: DocumentQuery.Operator, _ value: [UInt8], into marked: inout [Bool], meter: inout ListQuery.Meter
    ) throws(HTTPError) {
        try meter.check()
        let test: ByteText.ValueTest
        switch operation {
        case .contains: test = .contains
        case .startsWith: test = .startsWith
        case .endsWith: test = .endsWith
        default:
            ByteText.mark(.equal, value, in: text, starts: starts, into: &marked)
            return
        }
        let wanted = Array(JavaScriptCase.lowercased(String(decoding: value, as: UTF8.self)).utf8)
        ByteText.mark(test, wanted, in: lower, starts: lowerStarts, into: &marked)
    }

    /// Marks the values `pattern` matches (a `_like` pattern, compiled as the filter compiles it): the text is
    /// searched a few hundred values at a time by the pattern in multiline mode (`^` and `$` at each value's
    /// ends), and each match is taken when it lies within one value without a line feed; a value a match
    /// starts in and runs past, or one holding a line feed, is matched alone, as the filter matches it.
    private func like(
        _ source: String, _ alone: PatternMatcher, _ name: String, into marked: inout [Bool],
        meter: inout ListQuery.Meter
    ) throws(HTTPError) {
        func matchesAlone(_ place: Int) throws(HTTPError) -> Bool {
            do {
                return try alone.matches(utf8: bytes(of: place))
            } catch {
                throw ListQuery.tooExpensive("the '\(name)' pattern needs too much work; simplify it")
            }
        }
        for place in broken {
            try meter.check()
            marked[place] = try matchesAlone(place)
        }
        var limits = ListQuery.patternLimits
        limits.maxPatternLength += 4
        limits.matchLimit = ListQuery.patternLimits.matchLimit * UInt32(Self.chunk)
        guard let pattern = try? Pattern("(?m)" + source, limits: limits) else {
            throw ListQuery.tooExpensive("the '\(name)' pattern cannot be compiled")
        }
        let joined = PatternMatcher(pattern)
        var isBroken = [Bool](repeating: false, count: distinctCount)
        for place in broken { isBroken[place] = true }
        var first = 0
        while first < distinctCount {
            let last = min(first + Self.chunk, distinctCount)
            try meter.check()
            // NB: the search of a chunk sees the line feed after its last value, where `^` and `$` match; a
            // match after it is in the next chunk's first value, searched with that chunk.
            let found = joined.findSegments(utf8: text, starts: starts, segments: first..<last)
            let stop = found.stopped?.segment ?? last
            for place in found.found where !isBroken[place] { marked[place] = true }
            for place in found.runningPast where !isBroken[place] { marked[place] = try matchesAlone(place) }
            if found.stopped != nil {
                // Past the chunk's limit (a pattern that backtracks much): the rest of it one by one, each value
                // within the limit of one match, as the filter matches it.
                for rest in stop..<last where !isBroken[rest] {
                    try meter.check()
                    marked[rest] = try matchesAlone(rest)
                }
            }
            first = last
        }
    }

    /// How many values one search of a `_like` pattern spans: its match limit is the filter's per value times
    /// this, so a pattern that backtracks much is stopped within a few milliseconds and matched value by value.
    static let chunk = 256

    /// Whether a match of `source` in a value is found at the same place in the values joined by line feeds,
    /// with `^` and `$` at each line's ends: no construct that looks past the match or stops backtracking.
    /// NB: read from the text without parsing it, so an escaped form (`\(?=`) is also refused; that only
    /// leaves the pattern to the per-item filter.
    private static func isJoinable(_ source: String) -> Bool {
        let bytes = Array(source.utf8)
        for (offset, byte) in bytes.enumerated() where offset + 1 < bytes.count {
            let next = bytes[offset + 1]
            switch byte {
            case UInt8(ascii: "("):
                if next == UInt8(ascii: "*") { return false }
                if next == UInt8(ascii: "?"), offset + 2 >= bytes.count || bytes[offset + 2] != UInt8(ascii: ":") {
                    return false
                }
            case UInt8(ascii: "\\"):
                if "AzZGKQE".utf8.contains(next) { return false }
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "}"):
                if next == UInt8(ascii: "+") { return false }
            default: break
            }
        }
        return true
    }
}
