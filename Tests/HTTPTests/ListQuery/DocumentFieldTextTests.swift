import HTTP
import StrictJSON
import Testing

@Suite struct DocumentFieldTextTests {
    /// Values a filter reads differently from their bytes (line feeds, non-ASCII text, canonical equivalents,
    /// lists, `\r\n`) beside plain ones, repeated past the size of one search of a `_like` pattern.
    private static let values: [JSONValue?] = {
        let tricky: [JSONValue?] = [
            .string("tiger stone"), .string("Tiger"), .string("a tiger"), .string("TIGER\n"), .string("x\ntiger"),
            .string("a\nb"), .string("a b"), .string("ab"), .string(""), nil, .null, .integer(1), .integer(10),
            .real(1.5), .bool(true), .string("true"), .string("1"), .array([.string("tiger"), .integer(1)]),
            .array([]), .object(JSONObject(["a": .integer(1)])), .string("[object Object]"), .string("STRASSE"),
            .string("straße"), .string("\u{212A}ite"), .string("kite"), .string("caf\u{E9}"), .string("cafe\u{301}"),
            .string("a\r\nb"), .string("a\r"), .string("tab\tged"), .string("é tiger"), .string("tiger é"),
            .string("zz;"), .string("zz\u{37E}"), .string("line\n"), .string("a\rb"), .string("a\u{2028}b"),
            .string("ΟΔΟΣ ΑΣ"), .string("İstanbul"), .string("\u{E000}"), .string("\u{1F600}"), .string("数据 ĐƯỜNG"),
        ]
        return (0..<20).flatMap { _ in tricky }
    }()

    private static let objects: [JSONObject] = values.map { value in JSONObject(value.map { ["f": $0] } ?? [:]) }

    private static let text = DocumentFieldText(values: values)

    @Test(arguments: [
        "f_ne=tiger", "f_ne=", "f:ne=1", "f_ne=Tiger&f_ne=1", "f_ne=true", "f_ne=%5Bobject%20Object%5D",
        "f=tiger%20stone", "f=1", "f=", "f=true&f=kite", "f:in=tiger,1,true", "f:in=,a%20b,",
        "f:contains=ti", "f:contains=K", "f:contains=tiger", "f:contains=b&f:contains=ss", "f:contains=1",
        "f:startsWith=tig", "f:startsWith=A", "f:endsWith=ER", "f:endsWith=e",
        "f:endsWith=b", "f_like=^ti", "f_like=er$", "f_like=a%5Csb", "f_like=b$", "f_like=^$", "f_like=.*",
        "f_like=e", "f_like=%5B%5Ex%5D%2Bz", "f_like=%C3%9F", "f_like=object", "f_like=a%5Cs*b|^z",
        "f_like=%5Cbtiger%5Cb", "f_like=(a|b)%5Cs(b|t)", "f_like=%5E(%3F%3Atiger)%24", "f_like=caf",
        "f_like=ite&f_like=^1", "f_like=x*", "f_like=%5Eb", "f_like=a$",
        "f:contains=", "f:contains=%C3%A9", "f_ne=%CD%BE", "f:startsWith=a%0Ab", "f:startsWith=a%0D", "f=zz%3B",
        "f=caf%C3%A9", "f:in=zz%CD%BE,a", "f:in=a,%CC%81b", "f:contains=%CE%B1%CF%82", "f:endsWith=%CE%B1%CF%83",
        "f:startsWith=i", "f:contains=%E6%95%B0%E6%8D%AE", "f:startsWith=%C4%90%C6%AF", "f_ne=%EE%80%80",
    ])
    func passesWhatTheFilterOfEachItemPasses(query: String) throws {
        let parsed = try DocumentQuery(QueryParameters(parsing: Substring(query)))
        let filter = try #require(parsed.filters.first)
        #expect(parsed.filters.allSatisfy(DocumentFieldText.answers))
        var marks = [Bool](repeating: true, count: Self.values.count)
        var meter = ListQuery.Meter()
        for filter in parsed.filters {
            let passing = try Self.text.passing(filter, meter: &meter) { Self.objects[$0] }
            for place in marks.indices where !passing[place] { marks[place] = false }
        }
        let expected = try parsed.apply(to: Array(Self.objects.indices)) { Self.objects[$0] }.items
        #expect(marks.indices.filter { marks[$0] } == expected, "\(filter.name)")
    }

    @Test(arguments: ["f=", "f_ne=", "f_like=^$", "f:endsWith=a"])
    func findsTheLastValueEmpty(query: String) throws {
        let values: [JSONValue?] = [.string("a"), nil, .string("b"), .string("a"), .string("")]
        let objects = values.map { value in JSONObject(value.map { ["f": $0] } ?? [:]) }
        let parsed = try DocumentQuery(QueryParameters(parsing: Substring(query)))
        var meter = ListQuery.Meter()
        let passing = try DocumentFieldText(values: values).passing(
            try #require(parsed.filters.first), meter: &meter
        ) { objects[$0] }
        let expected = try parsed.apply(to: Array(objects.indices)) { objects[$0] }.items
        #expect(passing.indices.filter { passing[$0] } == expected)
    }

    @Test(arguments: [
        "f_like=(%3F%3Dt)t", "f_like=%5CAt", "f_like=t%5Cz", "f_like=(%3Fi)t", "f_like=t%2B%2B", "f_like=(*UTF)t",
        "f_like=(%3F%3Et)", "f_like=%5CKt", "f_gte=1",
    ])
    func leavesToTheItemsWhatTheTextCannotDecide(query: String) throws {
        let parsed = try DocumentQuery(QueryParameters(parsing: Substring(query)))
        #expect(!DocumentFieldText.answers(try #require(parsed.filters.first)))
    }

    @Test func refusesAPatternThatNeedsTooMuchWorkOnAValueAsTheFilterOfEachItemDoes() throws {
        let values: [JSONValue?] = (0..<600).map { .string(String(repeating: "a", count: $0 == 500 ? 40 : 3)) }
        let text = DocumentFieldText(values: values)
        let parsed = try DocumentQuery(QueryParameters(parsing: "f_like=(a|aa)%2B%5Bbc%5D"))
        let objects = values.map { JSONObject(["f": $0 ?? .null]) }
        #expect(throws: HTTPError.self) { try parsed.apply(to: objects) { $0 } }
        var meter = ListQuery.Meter()
        #expect(throws: HTTPError.self) {
            try text.passing(try #require(parsed.filters.first), meter: &meter) { objects[$0] }
        }
    }
}
