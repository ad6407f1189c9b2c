import HTTP
import StrictJSON
import Testing

@Suite struct DocumentSearchTextTests {
    private let items: [JSONObject] = [
        JSONObject(["id": .integer(1), "lantern": .integer(1)]),
        JSONObject(["id": .integer(2), "title": .string("Paper LANTERN")]),
        JSONObject(["id": .integer(3), "n": .integer(12345), "quote": .string("he said \"lantern\"")]),
        JSONObject([
            "id": .integer(4), "lines": .string("lan\ntern"),
            "deep": .array([.object(JSONObject(["a": .string("x")]))]),
        ]),
        JSONObject(["id": .integer(5), "unicode": .string("LANTERNÉ"), "kelvin": .string("\u{212A}ite")]),
        JSONObject(["id": .integer(6), "separator": .string("x},{y"), "tags": .array([.string("a"), .string("234")])]),
    ]

    /// The places `q=text` finds through the joined text, and how many items it read to decide.
    private func search(_ text: String) throws -> (places: [Int], reads: Int)? {
        let query = try DocumentQuery(QueryParameters(parsing: Substring("q=" + text)))
        let joined =
            Array("[".utf8) + Array(items.map(\.compactBytes).joined(separator: Array(",".utf8))) + Array("]".utf8)
        let searchText = try #require(DocumentSearchText(joined: joined, lengths: items.map(\.compactBytes.count)))
        var meter = ListQuery.Meter()
        var reads = 0
        let places = try searchText.search(query, meter: &meter) { place in
            reads += 1
            return query.searchMatches(items[place])
        }
        return places.map { ($0, reads) }
    }

    @Test(arguments: ["lantern", "LanTern", "234", "kite", "},{", "x", "tern", "said", "zzz"])
    func findsWhatReadingEachItemFinds(text: String) throws {
        let query = try DocumentQuery(QueryParameters(parsing: Substring("q=" + text)))
        let expected = items.indices.filter { query.searchMatches(items[$0]) }
        #expect(try search(text)?.places == expected)
    }

    @Test func readsOnlyTheItemsWhoseBytesCannotTell() throws {
        // Item 2's match is in a plain value; item 3's string holds escapes, item 5's a non-ASCII character;
        // item 1's match is in a key and is not read.
        let found = try #require(try search("lantern"))
        #expect(found.places == [1, 2, 4])
        #expect(found.reads == 2)
    }

    @Test func answersNilForTextTheBytesCannotHold() throws {
        #expect(try search("%C3%A9t%C3%A9") == nil)
        #expect(try search("a%22b") == nil)
    }

    @Test func refusesBytesThatAreNotTheItemsJoined() {
        #expect(DocumentSearchText(joined: Array("[{},{}]".utf8), lengths: [2, 3]) == nil)
        #expect(DocumentSearchText(joined: Array("[{},{}]".utf8), lengths: [2, 2])?.count == 2)
    }
}
