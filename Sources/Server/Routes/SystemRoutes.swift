import HTTP

extension Router {
    /// `GET /healthz`, and the static files of `--public` for every GET no other route answers.
    mutating func addSystemRoutes(_ app: App) {
        let healthy = Response.json(encoded: Array(#"{"status":"ok"}"#.utf8))
        get("/healthz") { _ in .response(healthy) }
        // json-server's list of its custom routes (`--routes`).
        if let routes = app.routes {
            get("/__rules") { _ in .response(.json(encoded: routes.rules)) }
        }

        // A missing folder is reported once the server runs (LiveStateServer.start).
        guard let files = app.staticFiles else { return }
        fallback = { request in try files.respond(to: request) }
    }
}
