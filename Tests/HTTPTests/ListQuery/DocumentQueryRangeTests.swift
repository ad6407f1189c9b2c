import HTTP
import StrictJSON
import Testing

@Suite struct DocumentQueryRangeTests {
    /// Values in the order `_sort` gives them: numbers, text, then booleans and missing ones.
    private let sorted: [JSONValue?] = [
        .integer(1), .integer(5), .real(5), .integer(9), .string("10"), .string("5"), .string("a"), .bool(true), nil,
    ]

    private func places(_ query: String) throws -> [Int] {
        let parsed = try DocumentQuery(QueryParameters(parsing: Substring(query)))
        return parsed.rangePlaces(in: Array(sorted.indices)) { sorted[$0] }.flatMap { Array($0) }
    }

    @Test(arguments: [
        ("n_gte=5", [1, 2, 3, 5, 6]), ("n_lte=5", [0, 1, 2, 4, 5]), ("n:gt=5", [3, 6]), ("n:lt=5", [0, 4]),
        ("n_gte=x", []), ("n:lt=0", []), ("n_gte=100", [5, 6]),
    ])
    func findsTheRunsEachFilterPassesAsComparingEachItemDoes(query: String, expected: [Int]) throws {
        #expect(try places(query) == expected)
        // The same items the per-item filter keeps.
        let parsed = try DocumentQuery(QueryParameters(parsing: Substring(query)))
        let objects = sorted.map { value in JSONObject(value.map { ["n": $0] } ?? [:]) }
        let kept = try parsed.apply(to: Array(objects.indices)) { objects[$0] }.items
        #expect(kept == expected)
    }

    @Test func answersTheFirstOrderingFilterWithOneValue() throws {
        let query = try DocumentQuery(QueryParameters(parsing: "a=1&b_gte=2&b_gte=3&c:lt=4&d_lte=5"))
        #expect(query.rangeFilter?.path == ["c"])
        #expect(query.without(filterAt: 2).filters.map(\.name) == ["a", "b_gte", "d_lte"])
    }
}
