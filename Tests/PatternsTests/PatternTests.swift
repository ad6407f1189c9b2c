import Patterns
import Testing

@Suite struct PatternTests {
    @Test(arguments: [
        ("^gam", "Gamma ray", true),
        ("sun$", "Here comes the SUN", true),
        ("a.*b", "xxAyyBzz", true),
        ("[0-9]+", "room 101", true),
        ("^été", "ÉTÉ indien", true),
        ("^\\w+$", "naïve", true),
        ("quis", "Lorem ipsum dolor", false),
        ("^b", "abc", false),
        ("x\\x{0}y", "x\u{0}y", true),
    ])
    func matchesOrdinaryPatternsCaseInsensitively(pattern: String, subject: String, expected: Bool) throws {
        #expect(try Pattern(pattern).matches(subject) == expected)
    }

    @Test func capturesAreTheTextOfEachGroupAndNilForOneThatTookNoPart() throws {
        let matcher = PatternMatcher(try Pattern("^/(é+)/(x)?(\\d+)$"))
        let groups = try #require(try matcher.captures(in: "/ÉÉ/42"))
        #expect(groups == ["/ÉÉ/42", "ÉÉ", nil, "42"])
        #expect(try matcher.captures(in: "/é/x") == nil)
        // A group after the last one set is there too, as nil.
        #expect(try PatternMatcher(Pattern("(a)|(b)")).captures(in: "a") == ["a", "a", nil])
    }

    @Test func aMatcherIsReusedAcrossSubjects() throws {
        let matcher = PatternMatcher(try Pattern("o{2}"))
        let kept = try ["moon", "mon", "BOOK", "box"].filter { try matcher.matches($0) }
        #expect(kept == ["moon", "BOOK"])
    }

    @Test func compilesWithTheJITWhereThisMachineHasOne() throws {
        #expect(try Pattern("abc").isJITCompiled == Pattern.isJITAvailable)
    }

    /// Patterns whose backtracking is exponential in the subject's length: each stops at a limit with its
    /// own error instead of running for years. (Each subject holds the literal the pattern requires, so
    /// PCRE2's required-character check cannot end the match early.)
    @Test(arguments: [
        ("(a+)+$", String(repeating: "a", count: 40) + "!"),
        ("(?#[)^(\\w+\\s?)*!$(?#])", String(repeating: "a", count: 40) + "!x"),
        ("^(\\w+\\s?)*$", String(repeating: "ab ", count: 20) + "!"),
        ("(x+x+)+y", String(repeating: "x", count: 40) + "!y"),
        ("((a|aa)+)+b", String(repeating: "a", count: 40) + "!b"),
        ("^(a|a|a|a|a|a|a|a)*$", String(repeating: "a", count: 30) + "b"),
        ("(?:(?:(?:a*)*b?)*c?)*d", String(repeating: "a", count: 40) + "!d"),
        ("(*NO_JIT)(a+)+$", String(repeating: "a", count: 40) + "!"),
    ])
    func catastrophicPatternsStopAtALimit(pattern: String, subject: String) throws {
        let compiled = try Pattern(pattern)
        #expect {
            try compiled.matches(subject)
        } throws: { error in
            guard case .limitExceeded = error as? PatternError else { return false }
            return true
        }
    }

    @Test func theInterpreterStopsAtItsDepthLimit() throws {
        let pattern = try Pattern("(*NO_JIT)^(a(?1)?)$", limits: PatternLimits(matchLimit: 10_000_000, depthLimit: 50))
        #expect(throws: PatternError.limitExceeded(.depth)) {
            try pattern.matches(String(repeating: "a", count: 500))
        }
        #expect(try pattern.matches(String(repeating: "a", count: 10)))
    }

    @Test func theInterpreterStopsAtItsHeapLimit() throws {
        let limits = PatternLimits(matchLimit: 100_000_000, depthLimit: 100_000_000, heapLimitKiB: 64)
        let pattern = try Pattern("(*NO_JIT)^(a(?1)?)$", limits: limits)
        #expect(throws: PatternError.limitExceeded(.heap)) {
            try pattern.matches(String(repeating: "a", count: 20_000))
        }
    }

    @Test func theJITStopsAtItsStackLimit() throws {
        try #require(Pattern.isJITAvailable)
        let limits = PatternLimits(matchLimit: 100_000_000, jitStackLimit: 32 * 1024)
        let pattern = try Pattern("^(a(?1)?)$", limits: limits)
        #expect(throws: PatternError.limitExceeded(.jitStack)) {
            try pattern.matches(String(repeating: "a", count: 100_000))
        }
    }

    @Test func aPatternOverTheLengthLimitIsRefusedBeforeCompiling() {
        let alternation = (0..<10_000).map { "word\($0)" }.joined(separator: "|")
        #expect(throws: PatternError.tooLong(limit: 256)) { try Pattern(alternation) }
        #expect(throws: PatternError.tooLong(limit: 8)) {
            try Pattern("abcdefghi", limits: PatternLimits(maxPatternLength: 8))
        }
    }

    @Test(arguments: [
        "(?:a|b){3000}", "(?:abcdef){5000}", "((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))))",
    ])
    func aPatternThatCompilesTooLargeOrNestsTooDeepIsRefused(pattern: String) {
        #expect {
            try Pattern(pattern)
        } throws: { error in
            guard case .tooComplex = error as? PatternError else { return false }
            return true
        }
    }

    @Test(arguments: ["(", "a{2,1}", "[z-a]", "\\C", "(?<=a+)b"])
    func anInvalidPatternSaysWhy(pattern: String) {
        #expect {
            try Pattern(pattern)
        } throws: { error in
            guard case .invalid(let message, _) = error as? PatternError else { return false }
            return !message.isEmpty
        }
    }

    @Test func firstMatchSearchesARangeOfBytesFromItsStart() throws {
        let bytes = Array("one Two three two".utf8)
        let matcher = PatternMatcher(try Pattern("two"))
        #expect(try matcher.firstMatch(utf8: bytes, in: 0..<bytes.count) == 4..<7)
        #expect(try matcher.firstMatch(utf8: bytes, in: 5..<bytes.count) == 14..<17)
        // The bytes after the range are not there: no match across its end, and `\z` is its end.
        #expect(try matcher.firstMatch(utf8: bytes, in: 5..<16) == nil)
        #expect(try PatternMatcher(Pattern("e\\z")).firstMatch(utf8: bytes, in: 0..<13) == 12..<13)
        // `\G`: at the range's start only.
        #expect(try PatternMatcher(Pattern("\\Gt")).firstMatch(utf8: bytes, in: 7..<bytes.count) == nil)
        #expect(try PatternMatcher(Pattern("\\Gt")).firstMatch(utf8: bytes, in: 8..<bytes.count) == 8..<9)
    }

    @Test func findSegmentsFindsOneMatchPerSegmentAndWhetherItRunsPast() throws {
        // Segments "ab", "xa", "", "aa a": a match in each but the third, the second's running past its end
        // (into the line feed that ends it and the next).
        let bytes = Array("\nab\nxa\n\naa a\nab\n".utf8)
        let starts = [1, 4, 7, 8, 13, 16]
        let matcher = PatternMatcher(try Pattern("a\\n?"))
        let found = matcher.findSegments(utf8: bytes, starts: starts, segments: 0..<4)
        #expect(found.found == [0, 1, 3] && found.runningPast == [1] && found.stopped == nil)
        // From the second segment; the text after the last searched one is not there.
        #expect(matcher.findSegments(utf8: bytes, starts: starts, segments: 1..<3).found == [1])
        #expect(matcher.findSegments(utf8: bytes, starts: starts, segments: 4..<5).found == [4])
        #expect(matcher.findSegments(utf8: bytes, starts: starts, segments: 2..<3).found == [])
    }

    @Test func findSegmentsSaysWhereALimitStoppedIt() throws {
        let value = String(repeating: "a", count: 30)
        let bytes = Array("\nb\n\(value)\nb\n".utf8)
        let matcher = PatternMatcher(try Pattern("(?m)^(a|aa)+c|b", limits: PatternLimits(matchLimit: 1_000)))
        let found = matcher.findSegments(utf8: bytes, starts: [1, 3, 34, 36], segments: 0..<3)
        #expect(found.found == [0])
        #expect(found.stopped?.segment == 1 && found.stopped?.error == .limitExceeded(.match))
    }
}
