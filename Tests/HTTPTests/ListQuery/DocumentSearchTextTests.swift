import HTTP
import StrictJSON
import Testing

@Suite struct DocumentSearchTextTests {
    private let items: [JSONObject] = [
        JSONObject(["id": .integer(1), "lantern": .integer(1)]),
        JSONObject(["id": .integer(2), "title": .string("Paper LANTERN")]),
        JSONObject(["id": .integer(3), "n": .integer(12345), "quote": .string("he said \"lantern\" \\o/")]),
        JSONObject([
            "id": .integer(4), "lines": .string("lan\ntern"),
            "deep": .array([.object(JSONObject(["a": .string("x")]))]),
        ]),
        JSONObject(["id": .integer(5), "unicode": .string("LANTERNÉ"), "kelvin": .string("\u{212A}ite")]),
        JSONObject(["id": .integer(6), "separator": .string("x},{y"), "tags": .array([.string("a"), .string("234")])]),
        JSONObject(["id": .integer(7), "a": .string("caf\u{E9}"), "b": .array([.string("cafe\u{301} au lait")])]),
        JSONObject(["id": .integer(8), "split": .array([.string("lan"), .string("tern")]), "title": .string("")]),
        JSONObject(["id": .integer(9), "greek": .string("\u{3A3}\u{3C3}\u{3C2}"), "n": .string("\u{37E}")]),
    ]

    /// The places `q=text` finds through the text, and how many items it read to decide; nil when the text
    /// does not answer it.
    private func search(_ text: String, fromBytes: Bool = false) throws -> (places: [Int], reads: Int)? {
        let query = try DocumentQuery(QueryParameters(parsing: Substring("q=" + text)))
        let searchText =
            fromBytes ? DocumentSearchText(compact: items.map(\.compactBytes)) : DocumentSearchText(objects: items)
        var meter = ListQuery.Meter()
        var reads = 0
        let places = try searchText.search(query, meter: &meter) { place in
            reads += 1
            return query.searchMatches(items[place])
        }
        return places.map { ($0, reads) }
    }

    @Test(arguments: [
        "lantern", "LanTern", "234", "kite", "},{", "x", "tern", "said", "zzz", "%22lantern%22", "%5Co%2F", "lan",
        "%C3%A9", "CAF%C3%89", "%C3%A9%20au", "caf", "%CF%83", "%CE%A3%CF%83%CF%82", "id", "1", "cafe", "%3B",
        "%CD%BE", "%CE%A3", "%CF%82",
    ])
    func findsWhatReadingEachItemFinds(text: String) throws {
        let query = try DocumentQuery(QueryParameters(parsing: Substring("q=" + text)))
        let expected = items.indices.filter { query.searchMatches(items[$0]) }
        #expect(try search(text)?.places == expected, "\(text)")
        // The same text read from the items' bytes (in C), as a collection's search text is made.
        #expect(try search(text, fromBytes: true)?.places == expected, "\(text)")
    }

    @Test func decidesEveryItemByItsLowercasedBytes() throws {
        // Items 1 and 2 hold it in strings (`"` too), item 4 beside non-ASCII characters; item 0's is a key,
        // item 3's split by a line feed, item 7's across two strings.
        let found = try #require(try search("lantern"))
        #expect(found.places == [1, 2, 4] && found.reads == 0)
        // Text beyond ASCII, and KELVIN SIGN lowercased to a k: no item is read.
        let accent = try #require(try search("%C3%A9"))
        #expect(accent.places == [4, 6] && accent.reads == 0)
        #expect(try search("KITE")?.places == [4])
        #expect(try search("lantern", fromBytes: true)?.reads == 0)
        #expect(try search("%C3%A9", fromBytes: true)?.reads == 0)
    }

    @Test func comparesCodeUnitsAsJavaScriptDoes() throws {
        // GREEK QUESTION MARK is not a semicolon (JavaScript's indexOf compares code units), and an `e` before a
        // combining accent is an `e`.
        #expect(try search("%CD%BE")?.places == [8])
        #expect(try search("%3B")?.places == [])
        #expect(try search("cafe")?.places == [6])
        #expect(try search("cafe", fromBytes: true)?.places == [6])
    }

    @Test func textWithALineFeedReadsOnlyTheItemsWhoseBytesHoldIt() throws {
        // Item 3's string holds a line feed; a line feed also ends each item's line, so an item whose bytes
        // hold it is read, unless its strings are all printable ASCII. A tab is decided by the bytes.
        for (text, reads) in [("n%0At", 1), ("N%0AT", 1), ("%0A", 4), ("a%09b", 0)] {
            let query = try DocumentQuery(QueryParameters(parsing: Substring("q=" + text)))
            let found = try #require(try search(text), "\(text)")
            #expect(found.places == items.indices.filter { query.searchMatches(items[$0]) }, "\(text)")
            #expect(found.reads == reads, "\(text)")
        }
    }
}
