import Domain
import Testing

@testable import HTTP
@testable import Server

/// Hostile list queries: paging arithmetic at Int.max, and `_like` patterns that would backtrack for ever.
extension ListQueryTests {
    private static let manyPhotos: [AlbumModel] = (1...25).map { id in
        AlbumModel(
            albumId: id % 3, id: id, title: "accusamus beatae ad facilis cum similique qui sunt \(id)",
            url: "/placeholder/600/\(id)", thumbnailUrl: "/placeholder/150/\(id)")
    }

    private func manyPhotosPage(_ raw: Substring) throws -> ListQueryPage<AlbumModel> {
        try ListQuery(QueryParameters(parsing: raw), for: AlbumModel.self).apply(to: Self.manyPhotos)
    }

    @Test(arguments: [
        "_page=1&_limit=9223372036854775807", "_page=2&_limit=9223372036854775807",
        "_page=3&_limit=4611686018427387904", "_page=9223372036854775807&_limit=2",
        "_page=9223372036854775807&_limit=9223372036854775807", "_start=9223372036854775807&_limit=9223372036854775807",
        "_start=9223372036854775807&_end=9223372036854775807", "_start=5&_end=2",
    ])
    func pagingNearIntMaxAnswersWithoutTrapping(_ raw: String) throws {
        let answer = try manyPhotosPage(Substring(raw))
        #expect(answer.items.count <= Self.manyPhotos.count)
        #expect(answer.totalCount == Self.manyPhotos.count)
        _ = answer.linkHeader(path: "/albums", query: QueryParameters(parsing: Substring(raw)))
    }

    @Test func aHugeLimitOnPageOneIsEverythingAndPageTwoIsEmpty() throws {
        #expect(try manyPhotosPage("_page=1&_limit=9223372036854775807").items.count == 25)
        #expect(try manyPhotosPage("_page=2&_limit=9223372036854775807").items.isEmpty)
        #expect(try manyPhotosPage("_page=1&_limit=9223372036854775807").lastPage == 1)
    }

    @Test(arguments: [
        #"^(\w+\s?)*!$"#, "^(a|a)*(a|a)*b$", "(.*a){20}", "^(([a-z])+.)+[A-Z]([a-z])+$", ".*.*.*x", "a?a?a?aaa",
        #"(a)\1"#, String(repeating: "a", count: 101),
    ])
    func refusesPatternsThatBacktrack(_ pattern: String) throws {
        let error = #expect(throws: HTTPError.self) {
            try ListQuery(QueryParameters([("title_like", pattern)]), for: AlbumModel.self)
        }
        #expect(error?.status == 400)
        #expect(error?.code == "invalid_query")
    }

    @Test(arguments: ["^acc", "sunt 2$", "beatae.*sunt", "[0-9]+$", "(?i)ACCUSAMUS", "cum|qui", #"\d{2}$"#, "a[*+?]b"])
    func keepsOrdinaryPatterns(_ pattern: String) throws {
        #expect(ListQuery.backtrackingRisk(pattern) == nil)
        _ = try ListQuery(QueryParameters([("title_like", pattern)]), for: AlbumModel.self).apply(to: Self.manyPhotos)
    }
}
