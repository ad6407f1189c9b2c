import Domain
import HTTP

extension Router {
    /// Seed 003's search: `GET /movies?q=` answers at once; `PUT /movies/keyword` goes through `$keyword`.
    mutating func addMovieRoutes(_ app: App) {
        let movies = app.models.movies

        get("/movies") { request in
            if let name = request.query.names.first(where: { $0 != "q" }) {
                throw HTTPError.badRequest("unknown parameter '\(name)'; /movies takes only 'q'", code: "invalid_query")
            }
            return try .json(movies.search(request.query["q"] ?? ""))
        }
        put("/movies/keyword") { request in
            _ = try request.idempotencyKey()
            let keyword: String = try request.jsonBody(fields: ["keyword"]).required("keyword")
            movies.keyword = keyword
            return try .json(["keyword": keyword], status: 202)
        }
    }
}
