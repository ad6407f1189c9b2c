/// A search answer, as seed 003's `Result`: `{"searchType", "expression", "results", "errorMessage"}`.
package struct MovieSearchResult: Codable, Equatable, Sendable {
    /// Always `Movie`.
    package var searchType: String
    /// The keyword searched for, as given.
    package var expression: String
    /// The films whose title or description contains the keyword.
    package var results: [Movie]
    /// Empty on success.
    package var errorMessage: String

    /// Creates a search result value.
    package init(searchType: String = "Movie", expression: String, results: [Movie], errorMessage: String = "") {
        self.searchType = searchType
        self.expression = expression
        self.results = results
        self.errorMessage = errorMessage
    }
}
