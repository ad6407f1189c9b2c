import Domain
import HTTP

extension Router {
    /// Seed 003's search: `GET /movies?q=` answers at once; `PUT /movies/keyword` goes through `$keyword`.
    mutating func addMovieRoutes(_ site: SeedSite) {
        let movies = site.models.movies

        get("/movies") { request in
            if let name = request.query.names.first(where: { $0 != "q" }) {
                throw HTTPError.badRequest("unknown parameter '\(name)'; /movies takes only 'q'", code: "invalid_query")
            }
            return try .json(movies.search(request.query["q"] ?? ""))
        }
        let journal = site.journal
        put("/movies/keyword") { request in
            let key = try request.idempotencyKey()
            let keyword: String = try request.jsonBody(fields: ["keyword"]).required("keyword")
            guard let key else {
                movies.keyword = keyword
                return try .json(["keyword": keyword], status: 202)
            }
            // With a key: the key is journaled first (an entry that changes nothing),
            // so a repeat on any instance is answered from the first and not sent into $keyword again.
            return .later { respond in
                SeedInput.append(.keyword, .init(keyword: keyword), key: key, to: journal) { result in
                    switch result {
                    case .success(let first):
                        if !first.repeated { movies.keyword = keyword }
                        let answer = try? Response.json(["keyword": first.payload.keyword ?? keyword], status: 202)
                        respond(answer ?? Response(error: .internalError))
                    case .failure(let error): respond(Response(error: error))
                    }
                }
            }
        }
    }
}
