import Domain
import HTTP
import StrictJSON
import Testing

@testable import Server

@Suite struct DocumentFieldIndexTests {
    private static let words = ["alpha", "river", "stone", "tiger", "quiet", "maple", "Zebra"]

    /// A large collection (past the threshold indexes answer from): titles of three words, numbers and some
    /// numeric or plain text as views, a nested author.
    private static func resource() -> DocumentResource {
        var state: UInt64 = 39
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let count = DocumentSortIndex.threshold + 1_000
        return DocumentResource(
            name: "posts", kind: .collection,
            documents: (1...count).map { id in
                let title = (0..<3).map { _ in words[next(words.count)] }.joined(separator: " ")
                var object = JSONObject([
                    "id": .integer(Int64(id)), "title": .string("\(title) \(id)"),
                    "author": .object(JSONObject(["name": .string(words[next(words.count)])])),
                ])
                object["views"] = id % 500 == 3 ? .string(["995", "abc"][next(2)]) : .integer(Int64(next(1_000)))
                return StoredDocument(id: DocumentID(pathSegment: String(id)), object: object)
            })
    }

    @Test(arguments: [
        #"_where={"views":{"gt":700}}&q=a"#,
        #"_where={"author":{"name":{"ne":"alpha"}}}&q=TI&_sort=-views&_limit=7"#,
        "views_gte=800&q=a&_sort=-views&_limit=7",
        "views_lte=300&q=e&_page=2&_limit=5",
        "author.name_ne=alpha&q=r&_sort=title&_page=3&_limit=4",
        "title_like=^s&q=river&views_lte=300",
        "title:contains=zebra&q=STONE&views_gte=100&_sort=views",
    ])
    func aSearchBesideAFieldsTextOrARangeAnswersAsEachItemTestedDoes(_ parameters: String) throws {
        let resource = Self.resource()
        let query = try DocumentQuery(QueryParameters(parsing: parameters[...]))
        let workers = WorkerPool(threads: 1)
        defer { workers.stop() }
        let (search, fields, sorts) = (
            DocumentSearchIndex(workers: workers), DocumentFieldIndex(workers: workers), DocumentSortIndex()
        )
        // The indexes the route picks for it, built here rather than on a worker.
        let marked = DocumentSortIndex.range(query, on: resource, anySort: true)
        let filters = DocumentFieldIndex.filters(of: query, on: resource, few: false, marking: marked != nil)
        let conditions = DocumentFieldIndex.conditionPaths(of: query, on: resource)
        #expect(!filters.isEmpty || !conditions.isEmpty || marked != nil)
        for build in fields.missingBuilds(query, filters, conditions: conditions, on: resource, idPath: ["id"]) {
            build()
        }
        search.build(on: resource)
        if let marked { sorts.build(DocumentQuery(ordering: marked.path), on: resource, idPath: ["id"]) }
        if !query.sortKeys.isEmpty { sorts.build(query, on: resource, idPath: ["id"]) }
        let range = marked.flatMap { marked in
            sorts.sorted(DocumentQuery(ordering: marked.path), on: resource).map { (marked.index, marked.path, $0) }
        }
        let page = try #require(
            try fields.answer(
                query, filters: filters, conditions: conditions, range: range, on: resource,
                order: query.sortKeys.isEmpty ? nil : sorts.sorted(query, on: resource), idPath: ["id"],
                searched: search.placing(query, on: resource)))
        let plain = try query.apply(to: resource.items.documents, bounded: false, object: { $0.object })
        #expect(page.items.map(\.id) == plain.items.map(\.id))
        #expect(page.totalCount == plain.totalCount)
        #expect(plain.totalCount > 0)
    }
}
