import Bitsets
import Testing

@Suite struct ByteTextTests {
    /// The segments holding a needle are those where a search of each segment alone finds it start, for
    /// random texts of a few letters (many overlapping and adjacent matches) and needles up to 3 bytes.
    @Test func findsTheSegmentsInWhichTheNeedleStarts() {
        var generator = SystemRandomNumberGenerator()
        let letters: [UInt8] = Array("ab\n".utf8)
        for _ in 0..<500 {
            var text: [UInt8] = []
            var starts = [0]
            for _ in 0..<Int.random(in: 0...8, using: &generator) {
                for _ in 0..<Int.random(in: 0...6, using: &generator) { text.append(letters.randomElement()!) }
                starts.append(text.count)
            }
            let needle = (0..<Int.random(in: 1...3, using: &generator)).map { _ in letters.randomElement()! }
            var expected: [Int] = []
            for segment in 0..<(starts.count - 1) {
                let end = min(starts[segment + 1] + needle.count - 1, text.count)
                let from = starts[segment]
                let found = (from..<starts[segment + 1]).contains { at in
                    at + needle.count <= end && Array(text[at..<(at + needle.count)]) == needle
                }
                if found { expected.append(segment) }
            }
            #expect(ByteText.segments(holding: needle, in: text, starts: starts) == expected, "\(text) \(needle)")
        }
    }

    @Test func containsComparesBytes() {
        #expect(ByteText.contains("cafe\u{301}", "cafe"))
        #expect(!ByteText.contains("a\u{37E}b", ";"))
        #expect(ByteText.contains("x", ""))
        #expect(!ByteText.contains("", "x"))
    }
}
