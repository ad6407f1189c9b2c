import HTTP
import StrictJSON

extension Router {
    /// A value resource of a data file (`"tags": ["a", "b"]`: an array whose elements are not all objects):
    /// `GET /tags` answers the list, whole or searched (`q`) or a slice (`_start`, `_end`, `_limit`, `_page`, with
    /// `X-Total-Count` and `Link` as a collection's); every write, to `/tags` or `/tags/x`, is a 405 with
    /// `Allow: GET, HEAD` that says why, as `--read-only` answers. A value is edited in the file, the
    /// server's watch loads it, and the server never writes it: its elements have no ids to address.
    mutating func addDocumentValue(_ name: String, _ values: DataFileValues) {
        get("/\(name)") { request in
            let query = try DocumentQuery(request.query)
            if !query.filters.isEmpty || !query.sortKeys.isEmpty || !query.embed.isEmpty || !query.expand.isEmpty {
                throw HTTPError.badRequest(
                    "'\(name)' is a list of values, not of objects: it takes only q, _page, _limit, _start and _end",
                    code: "invalid_query")
            }
            let elements = try query.searched(values.value(name)?.elements ?? []) { try? JSONValue(parsing: $0) }
            let page = query.window.page(of: elements)
            return .response(
                .json(
                    encoded: DataFileValue.array(page.items),
                    headers: page.headers(path: request.path, query: request.query)))
        }
        get("/\(name)/:id") { _ in
            throw HTTPError.notFound(
                "'\(name)' is a list of values, not a collection of objects: its elements have no ids; GET /\(name)"
                    + " answers it (with _start, _end, _limit or _page for a part)")
        }
        let refusal = HTTPError(
            405, "method_not_allowed",
            "'\(name)' is a list of values, not a collection of objects: it is read-only here; edit it in the data"
                + " file, which the server watches",
            headers: ["Allow": "GET, HEAD"])
        for pattern in ["/\(name)", "/\(name)/:id"] {
            for method in [HTTPMethod.post, .put, .patch, .delete] { on(method, pattern) { _ in throw refusal } }
            // NB: the write routes above exist only to say why they refuse: a plain OPTIONS learns the truth.
            on(.options, pattern) { _ in .response(Response(status: 204, headers: ["Allow": "GET, HEAD"])) }
        }
    }
}
