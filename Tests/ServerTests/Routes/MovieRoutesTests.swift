import Domain
import Foundation
import Reactive
import Testing

@testable import HTTP
@testable import Server

/// `/movies` through the whole router, in-process.
@Suite struct MovieRoutesTests {
    private let harness: RouteHarness
    init() throws { harness = try RouteHarness() }

    @Test func searchAnswersAtOnceIgnoringCase() throws {
        let result = try harness.decode(MovieSearchResult.self, "/movies?q=NOLAN")
        #expect(result.expression == "NOLAN")
        #expect(result.searchType == "Movie")
        #expect(result.results.count >= 8)
        #expect(result.results.allSatisfy { $0.description.contains("Christopher Nolan") })
        #expect(try harness.decode(MovieSearchResult.self, "/movies?q=the%20matrix").results.map(\.id) == ["tt0133093"])
    }

    @Test func anEmptyOrMissingQueryGivesAnEmptyResult() throws {
        #expect(
            try harness.send(.get, "/movies?q=").decoded(MovieSearchResult.self)
                == MovieSearchResult(expression: "", results: []))
        #expect(try harness.decode(MovieSearchResult.self, "/movies").results.isEmpty)
        #expect(try harness.send(.get, "/movies?title=Alien").status == 400)
    }

    @Test func searchingDoesNotEmitButAKeywordDoes() throws {
        _ = try harness.send(.get, "/movies?q=alien")
        #expect(harness.seeds.models.movies.results.value == nil)
        let response = try harness.send(.put, "/movies/keyword", json: #"{"keyword":"alien"}"#)
        #expect(response.status == 202)
        #expect(response.text == #"{"keyword":"alien"}"#)
        #expect(harness.seeds.models.movies.keyword == "alien")
        #expect(try harness.send(.put, "/movies/keyword", json: #"{"keyword":3}"#).status == 400)
        #expect(try harness.send(.post, "/movies/keyword", json: #"{"keyword":"x"}"#).status == 405)
    }
}
