import Bitsets
import Testing

@Suite struct ByteTextValuesTests {
    /// Random values of a few letters (a separator after each), where overlapping, adjacent and running-past
    /// matches abound: each test marks what comparing each value alone gives, and leaves the marks set already.
    @Test func marksTheValuesThatPassAsEachAloneDoes() {
        var generator = SystemRandomNumberGenerator()
        let letters: [UInt8] = Array("ab\n".utf8)
        for _ in 0..<500 {
            var text: [UInt8] = [0x0A]
            var starts: [Int] = []
            var values: [[UInt8]] = []
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                starts.append(text.count)
                let value = (0..<Int.random(in: 0...5, using: &generator)).map { _ in letters.randomElement()! }
                values.append(value)
                text += value + [0x0A]
            }
            starts.append(text.count)
            let needle = (0..<Int.random(in: 0...3, using: &generator)).map { _ in letters.randomElement()! }
            let already = values.map { _ in Bool.random(using: &generator) }
            for test in [ByteText.ValueTest.equal, .contains, .startsWith, .endsWith] {
                var marked = already
                ByteText.mark(test, needle, in: text, starts: starts, into: &marked)
                let expected = zip(values, already).map { value, set in
                    set || Self.passes(value, test, needle)
                }
                #expect(marked == expected, "\(test) \(values) \(needle)")
            }
        }
    }

    private static func passes(_ value: [UInt8], _ test: ByteText.ValueTest, _ needle: [UInt8]) -> Bool {
        switch test {
        case .equal: return value == needle
        case .startsWith: return value.starts(with: needle)
        case .endsWith: return value.reversed().starts(with: needle.reversed())
        case .contains:
            return needle.isEmpty
                || (0...max(0, value.count - needle.count)).contains { at in
                    at + needle.count <= value.count && Array(value[at..<(at + needle.count)]) == needle
                }
        }
    }

    /// Texts of ASCII, two- and three-byte characters, U+E000...U+FFFF and characters past U+FFFF order as
    /// their UTF-16 code units do (JavaScript's `<`), not as their scalars or Swift's `<`.
    @Test func ordersByUTF16CodeUnits() {
        var generator = SystemRandomNumberGenerator()
        let characters = ["a", "Z", "é", "\u{3B1}", "数", "\u{E000}", "\u{FF5E}", "\u{1F600}", "\u{10000}", "e\u{301}"]
        for _ in 0..<2_000 {
            let lhs = (0..<Int.random(in: 0...3, using: &generator)).map { _ in characters.randomElement()! }.joined()
            let rhs = (0..<Int.random(in: 0...3, using: &generator)).map { _ in characters.randomElement()! }.joined()
            let expected =
                Array(lhs.utf16) == Array(rhs.utf16) ? 0 : (lhs.utf16.lexicographicallyPrecedes(rhs.utf16) ? -1 : 1)
            #expect(ByteText.order(lhs, rhs) == expected, "\(lhs) \(rhs)")
            let text: [UInt8] = [0x0A] + Array(lhs.utf8) + [0x0A]
            let marks = ByteText.marks(
                orderingAgainst: Array(rhs.utf8), in: text, starts: [1, text.count], less: true, equal: false,
                greater: false)
            #expect(marks == [expected < 0])
        }
        #expect(ByteText.order("\u{1F600}", "\u{E000}") == -1 && ByteText.order("caf\u{E9}", "cafe\u{301}") == 1)
    }
}
