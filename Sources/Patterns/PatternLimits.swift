/// The bounds on one pattern: how long it may be, how large it may compile, and how much work one match may do.
///
/// A pattern comes from a client (`?title_like=`), so every bound is a hard one PCRE2 enforces itself: a
/// match that reaches one stops with ``PatternError/limitExceeded(_:)`` instead of running on.
///
/// ```swift
/// let pattern = try Pattern("^gam", limits: PatternLimits(matchLimit: 10_000))
/// ```
public struct PatternLimits: Sendable, Equatable {
    /// The longest pattern, in UTF-8 bytes (PCRE2's `pcre2_set_max_pattern_length`).
    public var maxPatternLength: Int
    /// The deepest nesting of parentheses (`pcre2_set_parens_nest_limit`).
    public var maxNesting: UInt32
    /// The largest compiled pattern, in bytes (`PCRE2_INFO_SIZE`; a repeat such as `a{1000}` is compiled as
    /// that many copies, so a short pattern can compile large).
    public var maxCompiledSize: Int
    /// How many times one match may enter PCRE2's internal match function (backtracking steps), interpreter
    /// and JIT alike (`pcre2_set_match_limit`).
    public var matchLimit: UInt32
    /// How deep the interpreter's backtracking may nest (`pcre2_set_depth_limit`; the JIT does not use it).
    public var depthLimit: UInt32
    /// The interpreter's backtracking memory for one match, in KiB (`pcre2_set_heap_limit`).
    public var heapLimitKiB: UInt32
    /// The largest JIT stack one matcher may grow to, in bytes (`pcre2_jit_stack_create`).
    public var jitStackLimit: Int

    /// Limits sized for a filter run over every item of a list: a match costs well under a millisecond.
    public init(
        maxPatternLength: Int = 256,
        maxNesting: UInt32 = 32,
        maxCompiledSize: Int = 32 * 1024,
        matchLimit: UInt32 = 20_000,
        depthLimit: UInt32 = 1_000,
        heapLimitKiB: UInt32 = 1_024,
        jitStackLimit: Int = 256 * 1024
    ) {
        self.maxPatternLength = maxPatternLength
        self.maxNesting = maxNesting
        self.maxCompiledSize = maxCompiledSize
        self.matchLimit = matchLimit
        self.depthLimit = depthLimit
        self.heapLimitKiB = heapLimitKiB
        self.jitStackLimit = jitStackLimit
    }
}
