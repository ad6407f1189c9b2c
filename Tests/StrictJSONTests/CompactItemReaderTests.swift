import StrictJSON
import Testing

@Suite struct CompactItemReaderTests {
    /// The one element `text` read in an array of its own.
    private func readOne(_ text: String, maxDepth: Int = JSONValue.defaultMaxDepth) -> CompactItemReader.Item? {
        let read = CompactItemReader().read(Array("[\(text)]".utf8), from: 1, idField: "id", maxDepth: maxDepth)
        return read.items.count == 1 ? read.items[0] : nil
    }

    /// What jansson and the writer give for `text`: its compact bytes, or nil when jansson refuses it.
    private func jansson(_ text: String, maxDepth: Int = JSONValue.defaultMaxDepth) -> [UInt8]? {
        (try? JSONValue(parsing: Array(text.utf8), maxDepth: maxDepth))?.compactBytes
    }

    /// Each of these is taken as written: the bytes are jansson's and the writer's, and so is the indent.
    @Test(arguments: [
        #"{"id": 1, "title": "a title", "done": false, "tags": ["x", "y"], "n": null, "t": true}"#,
        "{\n    \"id\": 1,\n    \"nested\": {\"a\": [1, [2, [3, {}]], []], \"b\": {}}\n  }",
        #"{"é": "café", "emoji": "😀", "cjk": "漢字", "line": "a\nb\tc\r\u0008\u000c"}"#,
        #"{"escaped": "\u00e9\/\"\\", "pair": "\ud83d\ude00", "control": "\u001F\u0001", "nul": "a\u0000b"}"#,
        #"{"big": 9223372036854775807, "small": -9223372036854775808, "zero": 0, "neg": -12}"#,
        #"{"price": 19.99, "e": 1E5, "one": 1.0, "half": -0.5, "z": -0.0, "f": 0.001, "g": 4503599627370495.5}"#,
        #"{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k18":18}"#,
        #"{}"#, #"{"id": "abc"}"#, "{\"a\":\"\u{2028}\u{7F}\"}",
    ])
    func writesWhatTheWriterWrites(text: String) throws {
        let item = try #require(readOne(text))
        let expected = try JSONValue(parsing: Array(text.utf8))
        #expect(item.bytes == expected.compactBytes)
        #expect(item.indentation == expected.indentationSize(indent: 2, depth: 2))
    }

    /// These are left to jansson: a real below 0.001 (which the writer may give an exponent) or integral past
    /// 9e18, an integer past Int64, a duplicate key (also once decoded, and past the 16 keys compared one by
    /// one), a key with NUL, a lone surrogate, and what RFC 8259 refuses.
    @Test(arguments: [
        #"{"n": 0.0009}"#, #"{"n": 1e-7}"#, #"{"n": 1e19}"#, #"{"n": 1.5e300}"#, #"{"n": 9223372036854775808}"#,
        #"{"n": -9223372036854775809}"#, #"{"a": 1, "a": 2}"#, #"{"a": 1, "\u0061": 2}"#,
        #"{"x": {"b": [{"c": 1, "c": 1}]}}"#,
        #"{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"k3":18}"#,
        #"{"a\u0000": 1}"#, #"{"s": "\ud800"}"#, #"{"s": "\udc00"}"#, #"{"s": "\ud800\u0041"}"#,
        #"{"s": "a"#, "{\"s\": \"a\tb\"}", #"{"a": 1,}"#, #"{"a": tru}"#, #"{"a" 1}"#, #"{"a": [1,]}"#,
        #"{"a": 01}"#,
    ])
    func leavesToJanssonWhatItMustDecide(text: String) {
        let item = readOne(text)
        #expect(item == nil || item?.bytes == nil)
    }

    /// Whatever is taken here, jansson takes and writes the same; whatever jansson refuses is never taken.
    @Test func takesNothingJanssonRefuses() {
        let texts = [
            #"{"s": "\ud800"}"#, "{\"s\": \"\u{7F}\"}", #"{"a": {"b": {"c": [[[]]]}}}"#, #"{"n": -0}"#,
            #"{"n": 1E400}"#, #"{"n": 1e-400}"#, #"{"s": "\uDFFF\uD800"}"#, "{\"a\":1}\u{0}",
        ]
        for text in texts {
            guard let bytes = readOne(text)?.bytes else { continue }
            #expect(jansson(text) == bytes, "\(text)")
        }
        // Invalid UTF-8 (a lone continuation byte, an overlong form, a surrogate written out).
        for raw: [UInt8] in [[0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80]] {
            let text = Array(#"[{"s": ""#.utf8) + raw + Array(#""}]"#.utf8)
            let read = CompactItemReader().read(text, from: 1, idField: "id")
            #expect(read.items.allSatisfy { $0.bytes == nil })
        }
    }

    /// Reals of every size, as the writer would spell them and in other spellings: each one taken is written
    /// as the writer writes the value jansson reads.
    @Test func realsAreWrittenAsTheWriterWritesThem() throws {
        var generator = SeededGenerator(seed: 7)
        var taken = 0
        for round in 0..<20_000 {
            let number: Double
            switch round % 4 {
            case 0: number = Double(bitPattern: generator.next())
            case 1: number = Double.random(in: -1e6...1e6, using: &generator)
            case 2: number = (Double.random(in: -1e4...1e4, using: &generator) * 100).rounded() / 100
            default: number = Double(Int64.random(in: -1_000_000...1_000_000, using: &generator)) / 8
            }
            guard number.isFinite else { continue }
            var spellings = [number.description, JSONValue.javaScriptText(number)]
            if number.description.contains("."), !number.description.contains("e") {
                spellings.append(number.description + "00")
            }
            for spelling in spellings {
                let text = #"{"n": \#(spelling)}"#
                guard let bytes = readOne(text)?.bytes else { continue }
                taken += 1
                #expect(bytes == jansson(text), "\(spelling)")
            }
        }
        #expect(taken > 30_000)
    }

    @Test func nestedPastTheDepthIsLeftToJansson() {
        let deep = String(repeating: #"{"a":"#, count: 5) + "1" + String(repeating: "}", count: 5)
        #expect(readOne(deep, maxDepth: 4)?.bytes == nil)
        #expect(jansson(deep, maxDepth: 4) == nil)
        #expect(readOne(deep, maxDepth: 5)?.bytes == jansson(deep, maxDepth: 5))
    }

    @Test(arguments: [
        (#"{"id": 7}"#, CompactItemReader.ID.integer(7)), (#"{"a": 1, "id": "x-1"}"#, .string("x-1")),
        (#"{"id": "\u00e9"}"#, .string("é")), (#"{"id": null}"#, .none), (#"{"a": 1}"#, .none),
        (#"{"id": ""}"#, .other), (#"{"id": true}"#, .other), (#"{"id": [1]}"#, .other), (#"{"id": {}}"#, .other),
    ])
    func givesTheIDMember(text: String, id: CompactItemReader.ID) {
        #expect(readOne(text)?.id == id)
    }

    @Test func framesTheElementsAndSaysWhereItStopped() {
        let reader = CompactItemReader()
        let text = Array(#"[ {"id": 1} ,{"id": 2}]"#.utf8)
        let read = reader.read(text, from: 1, idField: "id")
        #expect(read.items.map(\.start) == [2, 13])
        #expect(read.items.map(\.end) == [11, 22])
        #expect(read.items.map(\.next) == [12, 22])
        #expect(read.stop == .end)
        // Another value than an object, a cut element, a stray byte after one, an element past the bytes asked.
        #expect(reader.read(Array(#"[{"id": 1}, 5]"#.utf8), from: 1, idField: "id").items.count == 1)
        #expect(reader.read(Array(#"[{"id": 1}, 5]"#.utf8), from: 1, idField: "id").stop == .other)
        let cut = reader.read(Array(#"[{"id": 1}, {"id": "#.utf8), from: 1, idField: "id")
        #expect(cut.items.count == 1 && cut.stop == .incomplete)
        let unended = reader.read(Array(#"[{"id": 1}"#.utf8), from: 1, idField: "id")
        #expect(unended.items.isEmpty && unended.stop == .incomplete)
        let stray = reader.read(Array(#"[{"id": 1} x]"#.utf8), from: 1, idField: "id")
        #expect(stray.items.isEmpty && stray.stop == .other)
        let limited = reader.read(
            Array(#"[{"id": 1}, {"id": 2}, {"id": 3}]"#.utf8), from: 1, maxBytes: 12, idField: "id")
        #expect(limited.items.count == 1 && limited.stop == .limit)
        let large = reader.read(Array(#"[{"id": 1, "text": "0123456789"}]"#.utf8), from: 1, maxBytes: 12, idField: "id")
        #expect(large.items.isEmpty && large.stop == .other)
    }

    /// One refused element leaves its whole read to jansson, which then reads the others and names the fault.
    @Test func aRefusedElementLeavesTheReadToJansson() throws {
        let text = Array(#"[{"id": 1}, {"id": tru}, {"id": 3}]"#.utf8)
        let read = CompactItemReader().read(text, from: 1, idField: "id")
        #expect(read.items.count == 3)
        #expect(read.items.allSatisfy { $0.bytes == nil })
        #expect(try JSONValue.parsing(text, from: read.items[0].start).end == read.items[0].end)
        #expect(throws: JSONParseError.self) { try JSONValue.parsing(text, from: read.items[1].start) }
    }

    /// Random items, pretty and compact, with every kind of value but reals: the reader writes each as jansson
    /// and the writer do.
    @Test func randomItemsAreWrittenAsTheWriterWrites() throws {
        var generator = SeededGenerator(seed: 41)
        let items = (0..<300).map { _ in JSONValue.object(Self.object(&generator, depth: 0)) }
        let pretty =
            "[\n" + items.map { String(decoding: $0.prettyBytes(), as: UTF8.self) }.joined(separator: ",\n") + "\n]"
        let compact = "[" + items.map { String(decoding: $0.compactBytes, as: UTF8.self) }.joined(separator: ",") + "]"
        for text in [pretty, compact] {
            let bytes = Array(text.utf8)
            var written: [[UInt8]?] = []
            var cursor = 1
            while true {
                let read = CompactItemReader().read(bytes, from: cursor, maxBytes: 2_000, idField: "id")
                written += read.items.map(\.bytes)
                guard read.stop == .limit, let last = read.items.last else { break }
                cursor = last.next + 1
            }
            #expect(written.count == items.count)
            for (item, bytes) in zip(items, written) { #expect(bytes == item.compactBytes) }
        }
    }

    private static func object(_ generator: inout SeededGenerator, depth: Int) -> JSONObject {
        var object = JSONObject()
        for index in 0..<Int.random(in: 0...6, using: &generator) {
            object["k\(index)\(Self.text(&generator, key: true))"] = value(&generator, depth: depth + 1)
        }
        return object
    }

    private static func value(_ generator: inout SeededGenerator, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
        case 0: .null
        case 1: .bool(Bool.random(using: &generator))
        case 2: .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3: .integer(Int64.random(in: -1000...1000, using: &generator))
        case 4: .string(text(&generator))
        case 5: .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in value(&generator, depth: depth + 1) })
        default: .object(object(&generator, depth: depth))
        }
    }

    /// NB: no NUL in a key, which jansson refuses.
    private static func text(_ generator: inout SeededGenerator, key: Bool = false) -> String {
        let pieces = ["a", "é", "\"", "\\", "\n", "\u{1}", "\u{1F}", "😀", "/", " ", key ? "b" : "\u{0}", "漢", "\u{7F}"]
        return (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
            .joined()
    }
}

/// xorshift64*: the same items on every run.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
