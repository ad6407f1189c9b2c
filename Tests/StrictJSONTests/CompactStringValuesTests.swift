import StrictJSON
import Testing

@Suite struct CompactStringValuesTests {
    @Test func readsEachObjectsStringValuesUnescapedWithoutItsKeys() throws {
        let list =
            #"[{"a":"x\"y","k\"ey":{"b":["\u00e9\ud83d\ude00\u0001",1.5e3,true,null,{"c":"\\\/"}]}},{},{"n":-2,"s":"plain"}]"#
        let values = try #require(CompactStringValues(list: Array(list.utf8), count: 3))
        let first: [UInt8] = [0] + Array("x\"y".utf8) + [0] + Array("é😀\u{1}".utf8) + [0] + Array(#"\/"#.utf8) + [0x0A]
        #expect(values.text == first + [0x0A] + [0] + Array("plain".utf8) + [0x0A])
        #expect(values.starts == [0, first.count, first.count + 1, values.text.count])
        #expect(values.others == [true, false, false])
    }

    @Test func readsWhatTheWriterWrites() throws {
        let objects = [
            JSONObject([
                "t": .string("tab\there \u{0}\u{7F} \u{2028} \"q\" \\"),
                "d": .array([.string("ü"), .object(JSONObject(["x": .string("}]")]))]),
            ]),
            JSONObject(["empty": .string(""), "big": .integer(Int64.max)]),
        ]
        let list = Array("[".utf8) + objects.map(\.compactBytes).joined(separator: Array(",".utf8)) + Array("]".utf8)
        let values = try #require(CompactStringValues(list: list, count: 2))
        let first: [UInt8] =
            [0] + Array("tab\there \u{0}\u{7F} \u{2028} \"q\" \\".utf8) + [0] + Array("ü".utf8) + [0] + Array("}]".utf8)
        #expect(values.text == first + [0x0A, 0, 0x0A])
        #expect(values.others == [true, false])
    }

    @Test func answersNilForAnythingElse() {
        for text in ["", "[", "{}", "[1]", #"[{"a":"x"}"#, #"[{"a":"x}]"#, "[{}]x"] {
            #expect(CompactStringValues(list: Array(text.utf8), count: 1) == nil, "\(text)")
        }
        #expect(CompactStringValues(list: Array("[{},{}]".utf8), count: 1) == nil)
        #expect(CompactStringValues(list: Array("[]".utf8), count: 0)?.starts == [0])
    }
}
