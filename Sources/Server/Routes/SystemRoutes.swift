import HTTP

extension Router {
    /// `GET /healthz`, and the static files of `--public` for every GET no other route answers.
    mutating func addSystemRoutes(_ app: App) {
        let healthy = Response.json(encoded: Array(#"{"status":"ok"}"#.utf8))
        get("/healthz") { _ in .response(healthy) }

        // A missing folder is reported once the server runs (LiveStateServer.start).
        guard let files = app.staticFiles else { return }
        fallback = { request in try files.respond(to: request) }
    }
}
