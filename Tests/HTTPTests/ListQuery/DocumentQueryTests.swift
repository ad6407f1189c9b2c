import HTTP
import StrictJSON
import Testing

@Suite struct DocumentQueryTests {
    private let items: [JSONObject] = [
        JSONObject([
            "id": .integer(1), "title": .string("Alpha"), "n": .integer(10),
            "author": .object(JSONObject(["name": .string("ann")])),
        ]),
        JSONObject(["id": .integer(2), "title": .string("beta"), "n": .real(2.5), "tags": .array([.string("x")])]),
        JSONObject(["id": .string("c"), "title": .string("Gamma ray"), "n": .integer(30)]),
    ]

    private func ids(_ query: String) throws -> [String] {
        let parsed = try DocumentQuery(QueryParameters(parsing: Substring(query)))
        return try parsed.apply(to: items) { $0 }.items.map { DocumentQuery.text($0["id"] ?? .null) }
    }

    @Test(arguments: [
        ("", ["1", "2", "c"]), ("id=1", ["1"]), ("id=c", ["c"]), ("author.name=ann", ["1"]), ("id=1&id=c", ["1", "c"]),
        ("n_gte=10", ["1", "c"]), ("n_lte=10", ["1", "2"]), ("n:gt=2.5", ["1", "c"]), ("title_like=^g", ["c"]),
        ("q=RAY", ["c"]), ("tags:contains=x", ["2"]), ("id:in=2,c", ["2", "c"]), ("missing=1", []),
        ("_sort=n", ["2", "1", "c"]), ("_sort=-n", ["c", "1", "2"]), ("_sort=title", ["1", "c", "2"]),
        ("_start=1&_end=2", ["2"]), ("_page=2&_limit=2", ["c"]), ("id_ne=1&id_ne=c", ["2"]),
        ("n:ne=10&n:ne=30", ["2"]),
    ])
    func selectsAndOrdersAsJSONServer(query: String, expected: [String]) throws {
        #expect(try ids(query) == expected)
    }

    @Test func readsEachItemOnceAndNotAtAllForWhatItKnows() throws {
        let query = try DocumentQuery(QueryParameters(parsing: "n_gte=1&_sort=title,-n"))
        var reads = 0
        let page = try query.apply(to: items) { item in
            reads += 1
            return item
        }
        #expect(page.items.map { DocumentQuery.text($0["id"] ?? .null) } == ["1", "c", "2"])
        #expect(reads == 3)
        // Narrowed by the index of `id` and sorted by id, which the item has at hand: no item is read.
        reads = 0
        let byID = try DocumentQuery(QueryParameters(parsing: "id=1&id=2&_sort=-id"))
        let known = try byID.apply(
            to: Array(items.prefix(2)), narrowed: true,
            object: { item in
                reads += 1
                return item
            }, knownValue: { item, path in path == ["id"] ? item["id"] : nil })
        #expect(known.items.map { DocumentQuery.text($0["id"] ?? .null) } == ["2", "1"])
        #expect(reads == 0)
    }

    @Test func totalCountsBeforeTheWindow() throws {
        let query = try DocumentQuery(QueryParameters(parsing: "_page=1&_limit=1"))
        let page = try query.apply(to: items) { $0 }
        #expect(page.totalCount == 3)
        #expect(page.items.count == 1)
    }

    @Test(arguments: ["_bogus=1", "n:between=1", "title_like=(", "_page=0", "_order=desc"])
    func refusesWhatItCannotRead(query: String) {
        #expect(throws: HTTPError.self) { try DocumentQuery(QueryParameters(parsing: Substring(query))) }
    }

    @Test func relationsAreReadNotFiltered() throws {
        let query = try DocumentQuery(QueryParameters(parsing: "_embed=comments,likes&_expand=user"))
        #expect(query.embed == ["comments", "likes"])
        #expect(query.expand == ["user"])
        #expect(query.filters.isEmpty)
    }
}
