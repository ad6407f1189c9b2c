import CPCRE2

/// What one thread needs to match a ``Pattern`` against many subjects: PCRE2's match data, a match context
/// carrying the pattern's limits, and a JIT stack of its own.
///
/// Not `Sendable`: PCRE2's match data and JIT stack belong to one thread at a time. Make one per request (or
/// per thread) and call ``matches(_:)`` for each subject.
///
/// ```swift
/// let matcher = PatternMatcher(try Pattern("sun$"))
/// let kept = try titles.filter { try matcher.matches($0) }
/// ```
public final class PatternMatcher {
    /// The pattern it matches.
    public let pattern: Pattern
    private let matchData: OpaquePointer?
    private let context: OpaquePointer?
    private let jitStack: OpaquePointer?

    /// Prepares to match `pattern`; the limits are the pattern's.
    public init(_ pattern: Pattern) {
        self.pattern = pattern
        let limits = pattern.limits
        matchData = pcre2_match_data_create_from_pattern_8(pattern.code, nil)
        context = pcre2_match_context_create_8(nil)
        if let context {
            pcre2_set_match_limit_8(context, limits.matchLimit)
            pcre2_set_depth_limit_8(context, limits.depthLimit)
            pcre2_set_heap_limit_8(context, limits.heapLimitKiB)
        }
        if pattern.isJITCompiled, let context {
            // Without a stack of its own the JIT uses 32 KiB of the thread's machine stack; this one is
            // allocated outside it and bounded by the pattern's limit.
            let start = min(32 * 1024, limits.jitStackLimit)
            jitStack = pcre2_jit_stack_create_8(start, limits.jitStackLimit, nil)
            if let jitStack { pcre2_jit_stack_assign_8(context, nil, UnsafeMutableRawPointer(jitStack)) }
        } else {
            jitStack = nil
        }
    }

    deinit {
        if let jitStack { pcre2_jit_stack_free_8(jitStack) }
        if let context { pcre2_match_context_free_8(context) }
        if let matchData { pcre2_match_data_free_8(matchData) }
    }

    /// Whether `subject` contains a match; a match that reaches a limit throws
    /// ``PatternError/limitExceeded(_:)``.
    public func matches(_ subject: String) throws(PatternError) -> Bool {
        try match(subject) != nil
    }

    /// The first match in `subject`: the text of the whole match, then of each capturing group in order
    /// (nil for a group that took no part in it); nil when there is none. A match that reaches a limit
    /// throws ``PatternError/limitExceeded(_:)``.
    ///
    /// ```swift
    /// try PatternMatcher(Pattern("^/api/(.*)$")).captures(in: "/api/posts")   // ["/api/posts", "posts"]
    /// ```
    public func captures(in subject: String) throws(PatternError) -> [Substring?]? {
        guard let pairs = try match(subject), let matchData else { return nil }
        let vector = pcre2_get_ovector_pointer_8(matchData)
        let utf8 = subject.utf8
        return (0..<pairs).map { group -> Substring? in
            guard let vector else { return nil }
            let (start, end) = (vector[2 * group], vector[2 * group + 1])
            // NB: PCRE2_UNSET (all bits set: out of range) marks a group that did not take part.
            guard start >= 0, start <= end, end <= utf8.count else { return nil }
            let from = utf8.index(utf8.startIndex, offsetBy: Int(start))
            let to = utf8.index(utf8.startIndex, offsetBy: Int(end))
            return Substring(subject[from..<to])
        }
    }

    /// Whether `bytes`, valid UTF-8 (the text of a Swift string, or JSON this program wrote), contain a match:
    /// a subject searched as it is stored, without making a string of it.
    public func matches(utf8 bytes: [UInt8]) throws(PatternError) -> Bool {
        try firstMatch(utf8: bytes, in: 0..<bytes.count) != nil
    }

    /// Where the first match in `bytes[range]` lies (byte offsets of the whole match in `bytes`); nil when
    /// there is none. `bytes` is valid UTF-8 and `range` starts and ends at characters; the text after `range`
    /// is as if not there (`\z` matches at its end), and a pattern that starts with `\G` matches at its start
    /// only. One long text (many items' JSON joined) is searched match by match so, without a call per item.
    public func firstMatch(utf8 bytes: [UInt8], in range: Range<Int>) throws(PatternError) -> Range<Int>? {
        guard let matchData, let context else {
            throw .failed(code: PCRE2_ERROR_NOMEMORY, message: "out of memory")
        }
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        let result = bytes.withUnsafeBufferPointer { bytes in
            pcre2_match_8(
                pattern.code, bytes.baseAddress, range.upperBound, range.lowerBound, UInt32(PCRE2_NO_UTF_CHECK),
                matchData, context)
        }
        guard try Self.pairs(result, matchData) != nil, let vector = pcre2_get_ovector_pointer_8(matchData) else {
            return nil
        }
        let (start, end) = (Int(vector[0]), Int(vector[1]))
        // NB: `\K` in a lookahead can set a start past the end; such a match is taken as empty at its end.
        return min(start, end)..<end
    }

    /// The segments of a text a search found a match in (`findSegments`), and where it stopped at a limit.
    public struct SegmentMatches: Sendable {
        /// The segments holding a match, ascending.
        public var found: [Int]
        /// Those of `found` whose match starts in the segment and runs past its end, ascending.
        public var runningPast: [Int]
        /// The segment the search was searching from when a match reached a limit, and the limit; nil when
        /// every segment was searched (`found` holds the matches before it either way).
        public var stopped: (segment: Int, error: PatternError)?
    }

    /// Searches `bytes` (valid UTF-8) segment by segment, one match per segment at most: segment `s` is
    /// `bytes[starts[s] ..< starts[s + 1] - 1]`, and the byte before `starts[s + 1]` (a separator, which the
    /// pattern may see) ends it; the text from `starts[segments.upperBound]` on is as if not there. After a
    /// match in a segment the search goes on at the next one, so a text of many values that most of them match
    /// costs one PCRE2 call per match, in a loop in C. Each call has the pattern's limits.
    ///
    /// ```swift
    /// let bytes = Array("\nab\ncd\n".utf8)  // the segments "ab" and "cd"
    /// matcher.findSegments(utf8: bytes, starts: [1, 4, 7], segments: 0..<2).found
    /// ```
    public func findSegments(utf8 bytes: [UInt8], starts: [Int], segments: Range<Int>) -> SegmentMatches {
        guard let matchData, let context else {
            let error = PatternError.failed(code: PCRE2_ERROR_NOMEMORY, message: "out of memory")
            return SegmentMatches(found: [], runningPast: [], stopped: (segments.lowerBound, error))
        }
        guard !segments.isEmpty, segments.lowerBound >= 0, segments.upperBound < starts.count,
            starts[segments.upperBound] <= bytes.count
        else { return SegmentMatches(found: [], runningPast: [], stopped: nil) }
        var (result, stopped, pastCount) = (Int32(0), 0, 0)
        var runningPast: [Int] = []
        let found = [Int](unsafeUninitializedCapacity: segments.count) { found, foundCount in
            runningPast = [Int](unsafeUninitializedCapacity: segments.count) { past, count in
                result = bytes.withUnsafeBufferPointer { bytes in
                    starts.withUnsafeBufferPointer { starts in
                        livestate_find_segments(
                            pattern.code, matchData, context, bytes.baseAddress, starts.baseAddress,
                            segments.lowerBound, segments.upperBound, found.baseAddress, &foundCount,
                            past.baseAddress, &pastCount, &stopped)
                    }
                }
                count = pastCount
            }
        }
        guard result < 0 else { return SegmentMatches(found: found, runningPast: runningPast, stopped: nil) }
        do {
            _ = try Self.pairs(result, matchData)
            return SegmentMatches(found: found, runningPast: runningPast, stopped: nil)
        } catch {
            return SegmentMatches(found: found, runningPast: runningPast, stopped: (stopped, error))
        }
    }

    /// Matches `subject` and answers how many of its (whole match and group) offset pairs are set; nil when
    /// there is no match.
    private func match(_ subject: String) throws(PatternError) -> Int? {
        guard let matchData, let context else {
            throw .failed(code: PCRE2_ERROR_NOMEMORY, message: "out of memory")
        }
        var subject = subject
        // A Swift string is valid UTF-8, so PCRE2 need not check it again on every match.
        let result = subject.withUTF8 { bytes in
            pcre2_match_8(
                pattern.code, bytes.baseAddress, bytes.count, 0, UInt32(PCRE2_NO_UTF_CHECK), matchData, context)
        }
        return try Self.pairs(result, matchData)
    }

    /// `pcre2_match`'s `result` as the number of offset pairs set, nil for no match, or the error.
    private static func pairs(_ result: Int32, _ matchData: OpaquePointer) throws(PatternError) -> Int? {
        switch result {
        // NB: the match data is sized from the pattern, so every group has its pair; those after the last
        // group set are unset.
        case 0...: return Int(pcre2_get_ovector_count_8(matchData))
        case PCRE2_ERROR_NOMATCH, PCRE2_ERROR_PARTIAL: return nil
        case PCRE2_ERROR_MATCHLIMIT: throw .limitExceeded(.match)
        case PCRE2_ERROR_DEPTHLIMIT: throw .limitExceeded(.depth)
        case PCRE2_ERROR_HEAPLIMIT: throw .limitExceeded(.heap)
        case PCRE2_ERROR_JIT_STACKLIMIT: throw .limitExceeded(.jitStack)
        default: throw .failed(code: result, message: Pattern.message(result))
        }
    }
}
