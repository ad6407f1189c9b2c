import Domain
import Testing

@testable import HTTP
@testable import Server

/// The json-server query language shared by every list route.
@Suite struct ListQueryTests {
    /// 12 photos: albums 1...3 hold 4 each; titles repeat "alpha"/"beta"/"Gamma ray" so search and sort have ties.
    private static let photos: [AlbumModel] = (1...12).map { id in
        let titles = ["beta", "alpha", "Gamma ray", "alpha"]
        return AlbumModel(
            albumId: (id - 1) / 4 + 1, id: id, title: "\(titles[id % 4]) \(id)",
            url: "/placeholder/600/\(id)", thumbnailUrl: "/placeholder/150/\(id)")
    }

    private static let todos = [
        Todo(id: 1, title: "Buy Milk", completed: false),
        Todo(id: 2, title: "Walk the dog", completed: true),
        Todo(id: 5, title: "water plants", completed: false),
    ]

    private func ids(_ raw: Substring) throws -> [Int] {
        try ListQuery(QueryParameters(parsing: raw), for: AlbumModel.self).apply(to: Self.photos).items.map(\.id)
    }

    private static let selections: [(Substring, [Int])] = [
        ("", Array(1...12)),
        ("albumId=2", [5, 6, 7, 8]),
        ("albumId=1&albumId=3", [1, 2, 3, 4, 9, 10, 11, 12]),
        ("albumId=2&id=6", [6]),
        ("albumId=7", []),
        ("id_gte=10", [10, 11, 12]),
        ("id_lte=2", [1, 2]),
        ("id_gte=3&id_lte=5", [3, 4, 5]),
        ("albumId_ne=1&albumId_ne=2", [9, 10, 11, 12]),
        ("title_like=^gam", [2, 6, 10]),
        ("q=GAMMA", [2, 6, 10]),
        ("q=alpha&albumId=1", [1, 3]),
        ("q=", Array(1...12)),
        ("q=no such text", []),
        ("_sort=id&_order=desc&_limit=3", [12, 11, 10]),
        ("_sort=-id&_limit=2", [12, 11]),
        ("_sort=albumId,id&_order=desc,asc&_limit=5", [9, 10, 11, 12, 5]),
        ("_sort=title&_limit=4", [10, 2, 6, 1]),  // case-sensitive, as json-server: "G" < "a"
        ("_sort=title&_order=desc&_limit=2", [8, 4]),
        ("_limit=3", [1, 2, 3]),
        ("_limit=0", []),
        ("_start=2&_end=5", [3, 4, 5]),
        ("_start=10", [11, 12]),
        ("_end=2", [1, 2]),
        ("_start=10&_end=99", [11, 12]),
        ("_start=5&_end=2", []),
        ("_start=4&_limit=2", [5, 6]),
        ("_page=2&_limit=5", [6, 7, 8, 9, 10]),
        ("_page=3&_limit=5", [11, 12]),
        ("_page=4&_limit=5", []),
        ("_page=2", [11, 12]),
        ("albumId=3&_page=2&_limit=3", [12]),
    ]

    @Test(arguments: selections)
    func selects(_ query: Substring, expected: [Int]) throws {
        #expect(try ids(query) == expected)
    }

    /// A query the language refuses, and the parameter the 400's message names.
    private static let refusals: [(Substring, String)] = [
        ("colour=red", "colour"), ("albumid=3", "albumid"), ("id_gt=3", "id_gt"), ("_page=two", "_page"),
        ("_page=0", "_page"), ("_page=-1", "_page"), ("_page=1.5", "_page"), ("_limit=ten", "_limit"),
        ("_limit=-1", "_limit"), ("_start=x", "_start"), ("_end=-2", "_end"), ("_sort=colour", "_sort"),
        ("_sort=id&_order=up", "_order"), ("_order=desc", "_order"), ("_sort=id,title&_order=asc,desc,asc", "_order"),
        ("title_like=(", "title_like"), ("_page=1&_start=2", "_page"), ("_end=4&_limit=2", "_end"),
        ("_page=1&_limit=0", "_limit"), ("_embed=comments", "_embed"),
    ]

    @Test(arguments: refusals)
    func refusesWithA400NamingTheParameter(_ query: Substring, named parameter: String) {
        #expect {
            try ListQuery(QueryParameters(parsing: query), for: AlbumModel.self)
        } throws: { error in
            guard let error = error as? HTTPError else { return false }
            return error.status == 400 && error.code == "invalid_query" && error.message.contains("'\(parameter)'")
        }
    }

    @Test func equalityComparesBooleansAndNumbersAsTheirText() throws {
        let query = try ListQuery(QueryParameters(parsing: "completed=true"), for: Todo.self)
        #expect(try query.apply(to: Self.todos).items.map(\.id) == [2])
        let byID = try ListQuery(QueryParameters(parsing: "id=5&id=1"), for: Todo.self)
        #expect(try byID.apply(to: Self.todos).items.map(\.id) == [1, 5])
        let sorted = try ListQuery(QueryParameters(parsing: "_sort=completed,id&_order=desc"), for: Todo.self)
        #expect(try sorted.apply(to: Self.todos).items.map(\.id) == [2, 5, 1])
    }

    @Test func totalCountIsTheFilteredCountBeforeTheWindow() throws {
        let page = try ListQuery(QueryParameters(parsing: "albumId=2&_limit=1"), for: AlbumModel.self)
            .apply(to: Self.photos)
        #expect(page.items.count == 1)
        #expect(page.totalCount == 4)
        #expect(
            page.headers(path: "/albums", query: QueryParameters(parsing: "albumId=2&_limit=1"))
                == ["X-Total-Count": "4"])
    }

    private static let links: [(Substring, String?)] = [
        (
            "_page=1&_limit=5",
            #"</albums?_page=1&_limit=5>; rel="first", </albums?_page=2&_limit=5>; rel="next", </albums?_page=3&_limit=5>; rel="last""#
        ),
        (
            "_page=2&_limit=5",
            #"</albums?_page=1&_limit=5>; rel="first", </albums?_page=1&_limit=5>; rel="prev", </albums?_page=3&_limit=5>; rel="next", </albums?_page=3&_limit=5>; rel="last""#
        ),
        (
            "_limit=5&_page=3",
            #"</albums?_limit=5&_page=1>; rel="first", </albums?_limit=5&_page=2>; rel="prev", </albums?_limit=5&_page=3>; rel="last""#
        ),
        (
            "albumId=1&_page=1&_limit=4",
            #"</albums?albumId=1&_page=1&_limit=4>; rel="first", </albums?albumId=1&_page=1&_limit=4>; rel="last""#
        ),
        (
            "q=gamma ray&_page=1&_limit=2",
            #"</albums?q=gamma%20ray&_page=1&_limit=2>; rel="first", </albums?q=gamma%20ray&_page=2&_limit=2>; rel="next", </albums?q=gamma%20ray&_page=2&_limit=2>; rel="last""#
        ),
        (
            "_page=9&_limit=5",
            #"</albums?_page=1&_limit=5>; rel="first", </albums?_page=3&_limit=5>; rel="prev", </albums?_page=3&_limit=5>; rel="last""#
        ),
        ("_limit=5", nil),
        ("", nil),
    ]

    @Test(arguments: links)
    func linkHeaderNamesFirstPrevNextLast(_ raw: Substring, expected: String?) throws {
        let query = QueryParameters(parsing: raw)
        let page = try ListQuery(query, for: AlbumModel.self).apply(to: Self.photos)
        #expect(page.linkHeader(path: "/albums", query: query) == expected)
        #expect(page.headers(path: "/albums", query: query)["Link"] == expected)
        #expect(page.headers(path: "/albums", query: query)["X-Total-Count"] == String(page.totalCount))
    }

    @Test func anEmptyListHasOnePage() throws {
        let query = QueryParameters(parsing: "albumId=9&_page=1")
        let page = try ListQuery(query, for: AlbumModel.self).apply(to: Self.photos)
        #expect(page.lastPage == 1)
        #expect(
            page.linkHeader(path: "/albums", query: query)
                == #"</albums?albumId=9&_page=1>; rel="first", </albums?albumId=9&_page=1>; rel="last""#)
    }

    @Test func everyModelNamesItsJSONKeys() throws {
        #expect(throws: Never.self) { try ListQuery(QueryParameters(parsing: "userId=1"), for: Post.self) }
        #expect(throws: Never.self) {
            try ListQuery(QueryParameters(parsing: "name=Combine"), for: AppleFramework.self)
        }
        #expect(throws: Never.self) { try ListQuery(QueryParameters(parsing: "resultType=Title"), for: Movie.self) }
        #expect(throws: HTTPError.self) { try ListQuery(QueryParameters(parsing: "albumId=1"), for: Post.self) }
    }
}
