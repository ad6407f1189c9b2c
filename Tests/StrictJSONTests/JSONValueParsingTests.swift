import StrictJSON
import Testing

@Suite struct JSONValueParsingTests {
    private func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }

    private func reason(_ bytes: [UInt8]) -> JSONParseError.Reason? {
        do {
            _ = try JSONValue(parsing: bytes)
            return nil
        } catch {
            guard case .invalid(let reason, _, _, _, _) = error else { return nil }
            return reason
        }
    }

    /// RFC 8259 rejects each of these (the grammar has no trailing comma, comment, NaN, leading zero, single
    /// quote, bare key, plus sign, hex, or whitespace other than space, tab, LF and CR; §8.1 lets a parser
    /// refuse a byte-order mark, and the contract does).
    @Test(arguments: [
        #"{"title":"a title",}"#, "[1,2,]", "[,1]", #"{"a":1 /* comment */}"#, "// comment\n{}", "# c\n{}",
        "NaN", "[NaN]", "Infinity", "[-Infinity]", "01", "[00]", "-01", "{\"a\":012}", "'a'", "{'a':1}",
        "{a:1}", "[1 2]", "+1", ".5", "1.", "1e", "-", "True", "nul", "{\"a\"}", "{\"a\" 1}",
        #""\x41""#, "\"a\tb\"", "\"a\nb\"", "\u{0B}{}", "\u{A0}{}", "\u{0C}[]", "[1,\u{0B}2]",
    ])
    func rejectsWhatRFC8259Rejects(text: String) {
        #expect(reason(Array(text.utf8)) == .syntax)
    }

    @Test func rejectsAByteOrderMark() {
        #expect(reason([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .syntax)
    }

    @Test func rejectsADuplicateKeyAtAnyDepth() {
        #expect(reason(Array(#"{"title":"a","title":"b"}"#.utf8)) == .duplicateKey)
        #expect(reason(Array(#"[{"x":{"a":1,"b":2,"a":3}}]"#.utf8)) == .duplicateKey)
    }

    @Test(arguments: ["", "   ", "{\"a\":", "[1,", "\"open"])
    func rejectsATextThatEndsTooEarly(text: String) {
        #expect(reason(Array(text.utf8)) == .prematureEnd)
    }

    @Test(arguments: ["{} {}", "1 2", "[] x", "null null", "[1]]", "0x10"])
    func rejectsContentAfterTheValue(text: String) {
        #expect(reason(Array(text.utf8)) == .trailingContent)
    }

    @Test(arguments: [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] as [[UInt8]])
    func rejectsInvalidUTF8(bytes: [UInt8]) {
        #expect(reason(bytes) == .invalidUTF8)
    }

    @Test func rejectsALoneSurrogateEscape() {
        // RFC 8259 §8.2 leaves it to the parser; a Swift string cannot hold one.
        #expect(reason(Array(#""\ud800""#.utf8)) != nil)
        #expect(reason(Array(#""\udc00x""#.utf8)) != nil)
    }

    @Test func rejectsNULInAKey() {
        // jansson keeps keys NUL-terminated; no resource has such a field anyway.
        #expect(reason(Array(#"{"a\u0000b":1}"#.utf8)) == .nulInKey)
    }

    /// A raw NUL byte is not JSON anywhere; jansson alone took `444\0` and `[1]\0` (a NUL after the value
    /// ended its input), which the fuzz stage found.
    @Test(arguments: ["444\u{0}", "[1]\u{0}", "{}\u{0}", "true\u{0}\u{0}", "\u{0}{}", "\"a\u{0}b\"", "[1,\u{0} 2]"])
    func rejectsARawNULByteAnywhere(text: String) {
        #expect(reason(Array(text.utf8)) == .syntax)
    }

    @Test func namesThePlaceOfARawNULByte() {
        #expect(
            throws: JSONParseError.invalid(
                reason: .syntax, message: "a NUL byte is not JSON (write \\u0000 inside a string)", line: 2, column: 3,
                offset: 6)
        ) { try JSONValue(parsing: Array("[1,\n 2\u{0}]".utf8)) }
    }

    @Test func keepsNULInsideAString() throws {
        let value = try parse(#"{"title":"abc\u0000def"}"#)
        #expect(value["title"] == .string("abc\u{0}def"))
        guard case .string(let title) = value["title"] else { return }
        #expect(Array(title.utf8) == [0x61, 0x62, 0x63, 0x00, 0x64, 0x65, 0x66])
    }

    @Test func keepsIntegersApartFromReals() throws {
        let value = try parse("[1, 1.0, 1e2, -0, 0.5, -12, 2E-1]")
        #expect(
            value == .array([.integer(1), .real(1), .real(100), .integer(0), .real(0.5), .integer(-12), .real(0.2)]))
    }

    @Test func readsTheWholeInt64Range() throws {
        #expect(try parse("9223372036854775807") == .integer(.max))
        #expect(try parse("-9223372036854775808") == .integer(.min))
    }

    @Test(arguments: [
        (#"{"id":9223372036854775808}"#, "id", "9223372036854775808"),
        (#"{"id":-9223372036854775809}"#, "id", "-9223372036854775809"),
        (#"{"a":[1,{"b":99999999999999999999}]}"#, "a[1].b", "99999999999999999999"),
        (#"{"x":1,"ratio":1e400}"#, "ratio", "1e400"),
        ("123456789012345678901234567890", "", "123456789012345678901234567890"),
        (#"{"first":1e999,"second":-1e999,"third":18446744073709551616}"#, "first", "1e999"),
    ])
    func namesTheFieldOfANumberOutOfRange(text: String, path: String, number: String) {
        #expect {
            try parse(text)
        } throws: { error in
            guard case .numberOutOfRange(let found?, let foundNumber) = error as? JSONParseError else { return false }
            return found.description == path && foundNumber == number
        }
    }

    @Test func anOutOfRangeNumberAmongManyIsStillAnError() {
        let text = "[" + Array(repeating: "1e999", count: 20).joined(separator: ",") + "]"
        #expect {
            try parse(text)
        } throws: { error in
            guard case .numberOutOfRange(_, let number) = error as? JSONParseError else { return false }
            return number == "1e999"
        }
    }

    @Test func keepsObjectMembersInTheOrderWritten() throws {
        let value = try parse(#"{"zeta":1,"alpha":2,"mid":{"b":true,"a":null}}"#)
        guard case .object(let object) = value, case .object(let inner)? = object["mid"] else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(object.keys == ["zeta", "alpha", "mid"])
        #expect(inner.keys == ["b", "a"])
        #expect(inner["a"] == .null)
    }

    @Test(arguments: [
        ("\"x\"", JSONValue.string("x")), ("42", .integer(42)), ("true", .bool(true)), ("null", .null),
        (" \t\r\n{}\n", .object(JSONObject())), (#""\ud83d\ude00 \u00e9\/""#, .string("😀 é/")),
        (#"{"":1}"#, .object(JSONObject(["": .integer(1)]))),
    ])
    func acceptsWhatRFC8259Allows(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test func rejectsTenThousandLevelsOfNestingWithoutOverflowingTheStack() {
        for open in ["[", #"{"a":"#] {
            let text = String(repeating: open, count: 10_000)
            #expect {
                try parse(text)
            } throws: { error in
                guard case .tooDeep = error as? JSONParseError else { return false }
                return true
            }
        }
    }

    @Test func boundsTheNumberOfConvertedValues() throws {
        let many = "[" + Array(repeating: "0", count: 100_000).joined(separator: ",") + "]"
        #expect(throws: JSONParseError.tooManyValues(limit: 1_000)) {
            try JSONValue(parsing: Array(many.utf8), maxValues: 1_000)
        }
        let members = "{" + (0..<2_000).map { "\"k\($0)\":{}" }.joined(separator: ",") + "}"
        #expect(throws: JSONParseError.tooManyValues(limit: 1_000)) {
            try JSONValue(parsing: Array(members.utf8), maxValues: 1_000)
        }
        // The root, its three members and the array's two elements: six values.
        let six = #"{"a":1,"b":[true,null],"c":"x"}"#
        #expect(try JSONValue(parsing: Array(six.utf8), maxValues: 6)["c"] == .string("x"))
        #expect(throws: JSONParseError.tooManyValues(limit: 5)) {
            try JSONValue(parsing: Array(six.utf8), maxValues: 5)
        }
    }

    @Test func boundsTheDepthOfTheConvertedValue() throws {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(throws: JSONParseError.tooDeep(limit: 512)) { try parse(deep) }
        let shallow = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        _ = try parse(shallow)
    }
}

/// `JSONValue.parsing(_:from:)`: one value of a longer text, and where it ends.
@Suite struct JSONValuePrefixParsingTests {
    @Test func readsOneValueAndSaysWhereItEnds() throws {
        let text = Array(#"[ {"id": 1, "tags": ["a"]} , "two",{}]"#.utf8)
        let first = try JSONValue.parsing(text, from: 1)
        #expect(first.value == .object(JSONObject(["id": .integer(1), "tags": .array([.string("a")])])))
        #expect(text[first.end - 1] == UInt8(ascii: "}"))
        let second = try JSONValue.parsing(text, from: first.end + 2)
        #expect(second.value == .string("two"))
        #expect(try JSONValue.parsing(text, from: second.end + 1).value == .object(JSONObject()))
    }

    @Test func refusesWhatTheWholeParseRefuses() {
        #expect(throws: JSONParseError.self) { try JSONValue.parsing(Array(#"x {"a": 1, "a": 2}"#.utf8), from: 2) }
        #expect(throws: JSONParseError.self) { try JSONValue.parsing(Array(#"{"a": [1,]}"#.utf8), from: 0) }
        #expect(throws: JSONParseError.self) { try JSONValue.parsing(Array(#"{"a": 1"#.utf8), from: 0) }
        #expect(throws: JSONParseError.self) { try JSONValue.parsing(Array("[[[1]]]".utf8), from: 0, maxDepth: 1) }
    }
}
