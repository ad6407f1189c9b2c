import Testing

@testable import HTTP

@Suite struct JavaScriptCaseTests {
    /// What node's `toLowerCase` gives (run by hand: `node -e 'console.log("ΟΔΟΣ Σ ΑΣ.".toLowerCase())'`).
    @Test func lowercasesAsJavaScriptDoes() {
        #expect(JavaScriptCase.lowercased("ΟΔΟΣ Σ ΑΣ.") == "οδος σ ας.")
        #expect(JavaScriptCase.lowercased("ΑΣ\u{301}") == "ας\u{301}")
        #expect(JavaScriptCase.lowercased("ΣΑ") == "σα")
        #expect(JavaScriptCase.lowercased("İ").unicodeScalars.map(\.value) == [0x69, 0x307])
        #expect(JavaScriptCase.lowercased("\u{212A}ELVIN") == "kelvin")
        #expect(JavaScriptCase.lowercased("ĐƯỜNG 서울 数据") == "đường 서울 数据")
    }

    /// The table the C loop lowercases by gives what Swift's `lowercased()` gives for every scalar it maps, and
    /// no scalar it leaves (0x20000 up) has another lowercase.
    @Test func theTableMapsEachScalarAsSwiftDoes() {
        var mapped = 0
        for code in UInt32(1)..<0x110000 {
            guard let scalar = Unicode.Scalar(code) else { continue }
            let lower = String(scalar).lowercased()
            if code >= 0x20000 {
                #expect(lower == String(scalar), "U+\(String(code, radix: 16))")
                continue
            }
            let entry = JavaScriptCase.table[Int(code)]
            guard entry != 0 else { continue }
            mapped += 1
            #expect(String(Character(Unicode.Scalar(entry)!)) == lower, "U+\(String(code, radix: 16))")
        }
        #expect(mapped > 100_000)
    }

    /// Segments lowercased in C, with those holding a capital sigma or U+0130 in Swift, are each string
    /// lowercased as `lowercased` lowercases it, and the starts follow the new lengths.
    @Test func segmentsAreLowercasedAsEachString() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["Ab", "ΟΔΟΣ", "İ", "数据", "Ⱥ", "\u{212A}", "Đ", "ς", " ", "\u{10400}", "😀", "\t", "Σ"]
        for _ in 0..<200 {
            var text: [UInt8] = []
            var starts = [0]
            var expected: [[UInt8]] = []
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                var segment: [UInt8] = []
                var strings: [String] = []
                for _ in 0..<Int.random(in: 0...3, using: &generator) {
                    let string = (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                        pieces.randomElement(using: &generator)!
                    }.joined()
                    strings.append(string)
                    segment += [0] + Array(string.utf8)
                }
                segment.append(0x0A)
                text += segment
                starts.append(text.count)
                expected.append(strings.flatMap { [0] + Array(JavaScriptCase.lowercased($0).utf8) } + [0x0A])
            }
            let lower = JavaScriptCase.lowercased(segments: text, starts: starts)
            #expect(lower.starts.count == starts.count)
            for (index, segment) in expected.enumerated() {
                #expect(Array(lower.text[lower.starts[index]..<lower.starts[index + 1]]) == segment)
            }
            #expect(lower.text.count == expected.reduce(0) { $0 + $1.count })
        }
    }
}
