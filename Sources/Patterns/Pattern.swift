import CPCRE2

/// A compiled, case-insensitive UTF-8 regular expression (PCRE2) with hard limits on its size and on the work
/// of each match.
///
/// Compiling checks the pattern's length, nesting and compiled size; the pattern is then JIT-compiled where
/// PCRE2 has a JIT for this machine, and interpreted otherwise. Either way a match that reaches
/// ``PatternLimits/matchLimit`` (or the interpreter's depth and heap limits, or the JIT's stack limit) throws
/// ``PatternError/limitExceeded(_:)``: no pattern, however built, runs on.
///
/// ```swift
/// let pattern = try Pattern("^gam")
/// try pattern.matches("Gamma")  // true
/// ```
///
/// A `Pattern` is immutable and may be shared between threads (PCRE2 allows concurrent matches on one
/// compiled pattern once JIT compilation is done); a ``PatternMatcher`` holds what one thread needs to match.
public final class Pattern: @unchecked Sendable {
    // NB: @unchecked: `code` is written once in init and only read afterwards (pcre2_match does not modify
    // a compiled pattern); it is freed in deinit, when no matcher can hold it any more (they retain self).
    let code: OpaquePointer
    /// The limits it was compiled with; its matchers use them.
    public let limits: PatternLimits
    /// The pattern as written.
    public let source: String
    /// Whether matches run as JIT-compiled machine code (false: PCRE2's interpreter).
    public let isJITCompiled: Bool

    /// Compiles `source` as a case-insensitive, Unicode-aware (`\w`, `\d`, case folding) UTF-8 pattern.
    public init(_ source: String, limits: PatternLimits = PatternLimits()) throws(PatternError) {
        var source = source
        let length = source.utf8.count
        guard length <= limits.maxPatternLength else { throw .tooLong(limit: limits.maxPatternLength) }
        guard let context = pcre2_compile_context_create_8(nil) else {
            throw .failed(code: PCRE2_ERROR_NOMEMORY, message: "out of memory")
        }
        defer { pcre2_compile_context_free_8(context) }
        pcre2_set_max_pattern_length_8(context, limits.maxPatternLength)
        pcre2_set_parens_nest_limit_8(context, limits.maxNesting)
        // \C matches one byte inside a UTF-8 character; a client's pattern has no use for it.
        let options = PCRE2_UTF | PCRE2_UCP | PCRE2_CASELESS | PCRE2_NEVER_BACKSLASH_C
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = source.withUTF8 { bytes in
            pcre2_compile_8(bytes.baseAddress, length, options, &errorCode, &errorOffset, context)
        }
        guard let compiled else {
            let message = Self.message(errorCode)
            if errorCode == PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP || errorCode == PCRE2_ERROR_PATTERN_TOO_LARGE {
                throw .tooComplex(message)
            }
            if errorCode == PCRE2_ERROR_PATTERN_STRING_TOO_LONG { throw .tooLong(limit: limits.maxPatternLength) }
            throw .invalid(message: message, offset: errorOffset)
        }
        var size = 0
        pcre2_pattern_info_8(compiled, UInt32(PCRE2_INFO_SIZE), &size)
        guard size <= limits.maxCompiledSize else {
            pcre2_code_free_8(compiled)
            throw .tooComplex("the pattern compiles to \(size) bytes, more than \(limits.maxCompiledSize)")
        }
        // A failed JIT compilation (no JIT for this CPU, no executable memory) leaves the interpreter, which
        // the same limits bound.
        self.isJITCompiled = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
        self.code = compiled
        self.limits = limits
        self.source = source
    }

    deinit {
        pcre2_code_free_8(code)
    }

    /// Whether `subject` contains a match (anywhere, unless the pattern anchors itself).
    ///
    /// Allocates a ``PatternMatcher`` for the one call; to match many subjects, make one and reuse it.
    public func matches(_ subject: String) throws(PatternError) -> Bool {
        try PatternMatcher(self).matches(subject)
    }

    /// Whether this PCRE2 build has a JIT for this machine (patterns are then JIT-compiled).
    public static var isJITAvailable: Bool {
        var available: UInt32 = 0
        return pcre2_config_8(UInt32(PCRE2_CONFIG_JIT), &available) >= 0 && available == 1
    }

    /// PCRE2's text for an error code.
    static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = pcre2_get_error_message_8(code, &buffer, buffer.count)
        guard length > 0 else { return "PCRE2 error \(code)" }
        return String(decoding: buffer[..<Int(length)], as: UTF8.self)
    }
}
