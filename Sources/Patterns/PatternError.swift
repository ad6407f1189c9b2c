/// Why a pattern could not be compiled, or why a match stopped before it had an answer.
public enum PatternError: Error, Equatable, Sendable {
    /// The pattern is longer than ``PatternLimits/maxPatternLength`` bytes.
    case tooLong(limit: Int)
    /// The pattern compiles larger than ``PatternLimits/maxCompiledSize`` bytes, or nests deeper than allowed.
    case tooComplex(String)
    /// The pattern is not a valid regular expression: PCRE2's message and the character offset it points at.
    case invalid(message: String, offset: Int)
    /// A match reached one of its limits: the pattern is too expensive for this subject.
    case limitExceeded(Limit)
    /// PCRE2 failed for another reason (its negative error code and message), e.g. out of memory.
    case failed(code: Int32, message: String)

    /// The limit a match ran into.
    public enum Limit: String, Sendable {
        /// ``PatternLimits/matchLimit``.
        case match
        /// ``PatternLimits/depthLimit``.
        case depth
        /// ``PatternLimits/heapLimitKiB``.
        case heap
        /// ``PatternLimits/jitStackLimit``.
        case jitStack
    }
}
