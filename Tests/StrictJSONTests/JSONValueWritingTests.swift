import StrictJSON
import Testing

@Suite struct JSONValueWritingTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    @Test func writesOneLineWithMembersInTheirOrder() throws {
        let value = try parse(#"{"z": 1, "a": [true, null, "x"], "m": {}}"#)
        #expect(String(decoding: value.compactBytes, as: UTF8.self) == #"{"z":1,"a":[true,null,"x"],"m":{}}"#)
    }

    /// What `JSON.stringify(value, null, 2)` prints: the form of a json-server file.
    @Test func prettyFormIsJavaScripts() throws {
        let value = try parse(#"{"posts": [{"id": 1, "tags": []}], "profile": {}}"#)
        let expected =
            "{\n  \"posts\": [\n    {\n      \"id\": 1,\n      \"tags\": []\n    }\n  ],\n  \"profile\": {}\n}"
        #expect(String(decoding: value.prettyBytes(), as: UTF8.self) == expected)
    }

    @Test(arguments: [
        (1.0, "1"), (1.5, "1.5"), (-0.25, "-0.25"), (1e21, "1e+21"), (1e-7, "1e-7"), (123456789012.0, "123456789012"),
        (1.5e300, "1.5e+300"),
    ])
    func numbersAsJavaScriptPrintsThem(value: Double, text: String) {
        #expect(JSONValue.javaScriptText(value) == text)
    }

    @Test func escapesWhatJSONStringifyEscapes() {
        let value = JSONValue.string("q\"b\\\n\t\u{1}é😀")
        #expect(String(decoding: value.compactBytes, as: UTF8.self) == #""q\"b\\\n\t\u0001é😀""#)
    }

    /// Escapes at the start, at the end, side by side and alone, between runs copied whole.
    @Test(arguments: [
        ("", #""""#), ("\"", #""\"""#), ("a\"", #""a\"""#), ("\"a", #""\"a""#), ("ab\n\ncd", #""ab\n\ncd""#),
        ("\u{1f}x\u{0}", #""\u001fx\u0000""#), ("é\\😀\r", #""é\\😀\r""#), ("plain text", #""plain text""#),
    ])
    func escapesOnlyWhatNeedsItAndCopiesTheRest(value: String, written: String) throws {
        #expect(String(decoding: JSONValue.string(value).compactBytes, as: UTF8.self) == written)
        #expect(try JSONValue(parsing: Array(written.utf8)) == .string(value))
    }

    @Test func writtenTextParsesBackToTheSameValue() throws {
        let text = #"{"a":[1,2.5,-3e-9,"\u0000x",{"b":null}],"c":false}"#
        let value = try parse(text)
        #expect(try JSONValue(parsing: value.compactBytes) == value)
        #expect(try JSONValue(parsing: value.prettyBytes()) == value)
    }

    /// A compact text indented without parsing reads as the value written with that indent, at any depth.
    @Test(arguments: [
        #"{"posts":[{"id":1,"tags":[],"meta":{}}],"profile":{}}"#,
        #"{"s":"a,b:{c}[d]\"e\\","n":[-1.5e-7,0,true,null],"deep":[[[]],[{}],[{"x":[1]}]]}"#,
        #"[]"#, #"{}"#, #""\\""#, #"12"#, #"[{"a":"\u0001\\\"}"}]"#,
        // Past the 32 levels whose line breaks were copied from one buffer before.
        String(repeating: #"{"a":"#, count: 200) + "[1,2]" + String(repeating: "}", count: 200),
    ])
    func indentsCompactTextAsTheWriterWouldIndentIt(text: String) throws {
        let value = try parse(text)
        for (indent, depth) in [(2, 0), (2, 2), (4, 1), (0, 0)] {
            var written: [UInt8] = []
            value.write(into: &written, indent: indent, depth: depth)
            var indented: [UInt8] = []
            JSONValue.writeIndented(compact: value.compactBytes, into: &indented, indent: indent, depth: depth)
            #expect(String(decoding: indented, as: UTF8.self) == String(decoding: written, as: UTF8.self))
            #expect(
                JSONValue.indentedCount(compact: value.compactBytes, indent: indent, depth: depth) == indented.count,
                "the count is the indented form's size, without making it")
            #expect(
                value.compactBytes.count + value.indentationSize(indent: indent, depth: depth) == indented.count,
                "the tree gives the same size")
        }
    }

    @Test func aDeepValueCostsManyTimesItsCompactSizeIndented() {
        let nested = String(repeating: "[", count: 60) + "1,1,1,1" + String(repeating: "]", count: 60)
        let compact = Array(nested.utf8)
        let indented = JSONValue.indentedCount(compact: compact, indent: 2, depth: 2)
        #expect(indented > 30 * compact.count)
    }
}
