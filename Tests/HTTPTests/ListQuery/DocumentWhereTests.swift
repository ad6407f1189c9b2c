import HTTP
import StrictJSON
import Testing

/// json-server v1's `_where` and page envelope, on items in memory.
@Suite struct DocumentWhereTests {
    private let items: [JSONObject] = [
        JSONObject(["id": .integer(1), "views": .integer(100), "title": .string("Alpha")]),
        JSONObject(["id": .integer(2), "views": .string("120"), "title": .string("beta")]),
        JSONObject(["id": .integer(3), "views": .null, "author": .object(JSONObject(["name": .string("ann")]))]),
    ]

    private func ids(_ condition: String) throws -> [Int64] {
        let matching = try DocumentWhere(parsing: condition)
        return items.filter(matching.matches).compactMap { item in
            if case .integer(let id)? = item["id"] { id } else { nil }
        }
    }

    @Test(arguments: [
        (#"{"views":{"gt":99}}"#, [Int64(1), 2]), (#"{"views":{"lt":1}}"#, [3]), (#"{"views":{"eq":"120"}}"#, [2]),
        (#"{"id":{"in":[1,"2",3]}}"#, [1, 3]), (#"{"title":{"startsWith":"AL"}}"#, [1]),
        (#"{"or":[{"id":{"eq":2}},{"author":{"name":{"contains":"N"}}}]}"#, [1, 2, 3]),
        (#"{"not":{"id":{"lte":2}}}"#, [3]), (#"{"and":[{"id":{"gt":1}},{"id":{"lt":3}}]}"#, [2]),
        (#"{"or":[]}"#, []), (#"{"id":2}"#, [2]),
    ])
    func filtersAsVersionOne(condition: String, expected: [Int64]) throws {
        #expect(try ids(condition) == expected)
    }

    /// Text compares as JavaScript compares it, by code units after `toLowerCase`: not by Swift's canonical
    /// equivalence (U+037E is `;`, KELVIN SIGN `K`), with a final sigma, and a character past U+FFFF before U+E000.
    @Test(arguments: [
        (#"{"t":{"eq":"a;b"}}"#, [Int64(2)]), (#"{"t":{"ne":"a;b"}}"#, [1, 3, 4, 5, 6, 7]),
        (#"{"t":{"in":["a\u037eb"]}}"#, [1]), (#"{"t":{"startsWith":"kelvin"}}"#, [3]),
        (#"{"t":{"contains":"K"}}"#, [3]), (#"{"t":{"endsWith":"ας"}}"#, [4]), (#"{"t":{"endsWith":"ασ"}}"#, []),
        (#"{"t":{"lt":"\ue000"}}"#, [1, 2, 3, 4, 6, 7]), (#"{"t":{"gte":"cafe"}}"#, [3, 4, 5, 6, 7]),
        (#"{"t":{"eq":"cafe\u0301"}}"#, [6]),
    ])
    func comparesTextByCodeUnits(condition: String, expected: [Int64]) throws {
        let texts = ["a\u{37E}b", "a;b", "\u{212A}ELVIN", "ΟΔΟΣ ΑΣ", "\u{E000}", "cafe\u{301}", "\u{1F600}"]
        let items = texts.enumerated().map { index, text in
            JSONObject(["id": .integer(Int64(index + 1)), "t": .string(text)])
        }
        let matching = try DocumentWhere(parsing: condition)
        let found = items.filter(matching.matches).compactMap { item in
            if case .integer(let id)? = item["id"] { id } else { nil }
        }
        #expect(found == expected, "\(condition)")
    }

    @Test(arguments: ["{", "[]", #"{"or":{}}"#, #"{"not":[1]}"#])
    func malformedConditionsAreA400(condition: String) {
        #expect(throws: HTTPError.self) { try DocumentWhere(parsing: condition) }
    }

    @Test func aPagePastTheLastAnswersTheLastInTheEnvelope() throws {
        let query = try DocumentQuery(QueryParameters(parsing: "_page=7&_per_page=2"))
        let page = try query.apply(to: items) { $0 }
        #expect(page.items.count == 1)
        let envelope = String(decoding: page.versionOneEnvelope(data: Array("[]".utf8)), as: UTF8.self)
        #expect(envelope == #"{"first":1,"prev":1,"next":null,"last":2,"pages":2,"items":3,"data":[]}"#)
    }
}
