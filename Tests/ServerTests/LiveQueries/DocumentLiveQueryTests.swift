import Domain
import StrictJSON
import Testing

@testable import HTTP
@testable import Server

/// json-server's query language as a live query: its parts (filter, sort keys, window) give what the
/// plain `GET` answers (`DocumentQuery.apply`), for sorts on several fields, mixed value types and ties.
@Suite struct DocumentLiveQueryTests {
    static let posts: [StoredDocument] = (1...30).map { number in
        var object = JSONObject()
        object["id"] = number % 7 == 0 ? .string("p\(number)") : .integer(Int64(number))
        object["userId"] = .integer(Int64(number % 3))
        object["views"] = number % 5 == 0 ? .null : (number % 4 == 0 ? .string("\(number)") : .real(Double(number % 6)))
        object["title"] = .string(["ab", "Abc", "b", "zz"][number % 4] + String(number % 2))
        object["author"] = .object(JSONObject(["name": .string(number % 2 == 0 ? "ann" : "bob")]))
        return StoredDocument(id: DocumentID(object["id"]!), object: object)
    }

    @Test(arguments: [
        "_sort=views,title", "_sort=-views,id&_limit=5", "userId=1&_sort=title&_order=desc",
        "_sort=author.name,-title&_start=3&_end=9", "title_like=^a&_sort=views", "q=ab&_sort=id&_page=2&_limit=3",
        "views_gte=2&_sort=userId,views,title", "_sort=id", "", "_page=9&_per_page=4&_sort=-title",
    ])
    func evaluatesAsThePlainGetAnswers(_ text: String) throws {
        let query = try DocumentQuery(Request(.get, "/posts?" + text).query)
        let plain = try query.apply(to: Self.posts, object: { $0.object })
        let live = DocumentLiveQuery(query: query).evaluate(Self.posts)
        #expect(live.items.map(\.bytes) == plain.items.map(\.bytes))
        #expect(live.total == plain.totalCount)
    }

    /// A write finds a query by its item's value of the query's `field=value` filter (`indexValue`): a
    /// top-level field and a path, numbers and strings alike, as the filter itself decides.
    @Test(arguments: ["userId=1", "userId=0&userId=2", "author.name=ann", "title=b1", "views=3"])
    func anItemIsFoundUnderTheValueOfTheQuerysEqualityFilter(_ text: String) throws {
        let query = DocumentLiveQuery(query: try DocumentQuery(Request(.get, "/posts?" + text).query))
        let terms = try #require(query.indexTerms)
        let passes = query.itemFilter()
        for post in Self.posts {
            let value = DocumentLiveQuery.indexValue(of: post, field: terms.field)
            #expect(value.map(terms.values.contains) ?? false == passes(post), "\(text), post \(post.id)")
        }
    }
}
