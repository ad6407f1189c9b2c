import HTTP
import StrictJSON
import Testing

@Suite struct DocumentFieldTextConditionTests {
    /// Values `_where` tells apart by type (`1`, `"1"`, `1.0`, `true`, `"true"`, null), numbers JavaScript
    /// reads from text (`" 12 "`), canonical equivalents, non-ASCII and control characters, lists and
    /// objects, beside plain text.
    private static let values: [JSONValue?] = [
        .string("tiger"), .string("Tiger stone"), .string("a tiger"), .integer(1), .string("1"), .real(1.0),
        .integer(12), .string(" 12 "), .string("12"), .real(1.5), .string("1e3"), .integer(-3), .real(-0.0),
        .integer(9_007_199_254_740_993), .integer(9_007_199_254_740_992), .bool(true), .bool(false),
        .string("true"), .null, nil, .string(""), .string("   "), .string("abc"), .string("ABC"), .string("m"),
        .string("Zebra crossing"), .string("\u{212A}ite"), .string("Kite"), .string("caf\u{E9}"),
        .string("cafe\u{301}"), .string("é tiger"), .string("a\nb"), .string("a\r\nb"), .string("x\u{1F600}"),
        .string("\u{FF5E}"), .array([.integer(1)]), .array([.string("tiger"), .integer(1)]), .array([]),
        .object(JSONObject(["g": .string("tiger")])), .string("[object Object]"), .string("0x10"),
        .string("Infinity"), .string("straße"), .string("STRASSE"), .string("a\u{37E}b"), .string("a;b"),
        .string("ΟΔΟΣ ΑΣ"), .string("\u{E000}"), .string("数据 ĐƯỜNG"),
    ]

    /// Items holding each value at `f`, and at `o` an object (whose `g` and `h.k` hold values too), a text, a
    /// list, null or nothing.
    private static let objects: [JSONObject] = (0..<(values.count * 6)).map { item in
        let value = values[item % values.count]
        let other = values[(item * 7 + 3) % values.count]
        var members = JSONObject()
        if let value { members["f"] = value }
        switch item % 6 {
        case 0: members["o"] = .object(JSONObject(other.map { ["g": $0, "h": .object(JSONObject(["k": $0]))] } ?? [:]))
        case 1: members["o"] = .string("x")
        case 2: members["o"] = .array([.object(JSONObject(["g": .string("tiger")]))])
        case 3: members["o"] = .null
        case 4: members["o"] = .object(JSONObject(["h": .integer(4), "g": value ?? .null]))
        default: break
        }
        return members
    }

    @Test(arguments: [
        #"{"f":{"eq":"tiger"}}"#, #"{"f":{"eq":1}}"#, #"{"f":{"eq":"1"}}"#, #"{"f":{"ne":1}}"#, #"{"f":{"eq":null}}"#,
        #"{"f":{"ne":null}}"#, #"{"f":{"eq":true}}"#, #"{"f":{"eq":"true"}}"#, #"{"f":{"eq":""}}"#,
        #"{"f":{"in":["tiger",1,true,null,"ABC"]}}"#, #"{"f":{"in":"1"}}"#, #"{"f":{"in":[]}}"#,
        #"{"f":{"eq":9007199254740992}}"#, #"{"f":{"eq":-0}}"#, #"{"f":{"eq":"Kite"}}"#, #"{"f":{"eq":"\u212Aite"}}"#,
        #"{"f":{"eq":"café"}}"#, #"{"f":{"ne":"é tiger"}}"#, #"{"f":{"eq":[1]}}"#, #"{"f":{"ne":{"g":"tiger"}}}"#,
        #"{"f":{"lt":10}}"#, #"{"f":{"gte":"12"}}"#, #"{"f":{"gt":"m"}}"#, #"{"f":{"lte":"Tiger"}}"#,
        #"{"f":{"lt":"é"}}"#, #"{"f":{"gt":null}}"#, #"{"f":{"lt":true}}"#, #"{"f":{"gte":"abc"}}"#,
        #"{"f":{"lt":"K"}}"#, #"{"f":{"gt":"\uFF5E"}}"#, #"{"f":{"lt":[5]}}"#, #"{"f":{"gt":1,"lt":20}}"#,
        #"{"f":{"gte":""}}"#, #"{"f":{"lt":"x"}}"#, #"{"f":{"gte":"caf\u00e9"}}"#, #"{"f":{"contains":"E\u0301"}}"#,
        #"{"f":{"contains":"TI"}}"#, #"{"f":{"startsWith":"a"}}"#, #"{"f":{"endsWith":"E"}}"#,
        #"{"f":{"contains":""}}"#, #"{"f":{"contains":"é"}}"#, #"{"f":{"contains":1}}"#, #"{"f":{"contains":"ss"}}"#,
        #"{"f":{"startsWith":"k"}}"#, #"{"f":{"endsWith":"b"}}"#, #"{"f":{"contains":"object"}}"#,
        #"{"f":"tiger"}"#, #"{"f":1}"#, #"{"f":null}"#,
        #"{"or":[{"f":{"eq":1}},{"o":{"g":{"eq":"tiger"}}}]}"#, #"{"not":{"f":{"eq":"tiger"}}}"#,
        #"{"o":{"g":{"ne":"x"}}}"#, #"{"o":{"h":{"k":{"lt":5}}}}"#, #"{"o":{"not":{}}}"#, #"{"o":{"x":{}}}"#,
        #"{"o":{"not":{"g":{"contains":"i"}}}}"#, #"{"o":{"eq":"x"}}"#, #"{"o":{"h":{"gt":3}}}"#,
        #"{"and":[]}"#, #"{"or":[]}"#, #"{"not":{"or":[]}}"#, #"{"and":[{"f":{"gte":1}},{"not":{"f":{"gt":12}}}]}"#,
        #"{"f":{"gte":0},"o":{"g":{"in":["tiger",1]}}}"#, #"{"missing":{"ne":1}}"#, #"{"missing":{"a":{"eq":1}}}"#,
        #"{"f":{"eq":"a;b"}}"#, #"{"f":{"in":["a\u037eb"]}}"#, #"{"f":{"lt":"\ue000"}}"#,
        #"{"f":{"gte":"\ud83d\ude00"}}"#, #"{"f":{"endsWith":"ας"}}"#, #"{"f":{"contains":"ĐƯỜNG"}}"#,
        #"{"f":{"startsWith":"数"}}"#,
    ])
    func passesWhatTheConditionOfEachItemPasses(condition text: String) throws {
        let condition = try DocumentWhere(parsing: text)
        var texts: [[String]: DocumentFieldText] = [:]
        for path in condition.textPaths {
            texts[path] = DocumentFieldText(
                conditionValues: Self.objects.map { DocumentFieldText.conditionValue(in: $0, at: path) })
        }
        var meter = ListQuery.Meter()
        let passing = try #require(try condition.passing(count: Self.objects.count, texts: texts, meter: &meter))
        let expected = Self.objects.indices.filter { condition.matches(Self.objects[$0]) }
        #expect(passing.indices.filter { passing[$0] } == expected, "\(text)")
    }

    @Test func needsATextOfEachPathItNames() throws {
        let condition = try DocumentWhere(parsing: #"{"f":{"eq":1},"o":{"g":{"eq":2},"not":{}},"p":{"q":{}}}"#)
        #expect(condition.textPaths == [["f"], ["o", "g"], ["p", "q"]])
        var meter = ListQuery.Meter()
        #expect(try condition.passing(count: 0, texts: [:], meter: &meter) == nil)
    }

    @Test func readsMembersNotTheElementsOfAList() {
        let object = JSONObject(["o": .array([.object(JSONObject(["g": .integer(1)]))]), "p": .object(JSONObject())])
        let (inList, listDepth) = DocumentFieldText.conditionValue(in: object, at: ["o", "0"])
        #expect(inList == nil && listDepth == 0)
        let (missing, depth) = DocumentFieldText.conditionValue(in: object, at: ["p", "g"])
        #expect(missing == nil && depth == 1)
        let (whole, wholeDepth) = DocumentFieldText.conditionValue(in: object, at: ["p"])
        #expect(whole == .object(JSONObject()) && wholeDepth == 1)
    }
}
