import HTTP

extension Router {
    /// `GET /healthz`, and the static files of `--public` for every GET no other route answers.
    mutating func addSystemRoutes(_ app: App) {
        let healthy = Response.json(encoded: Array(#"{"status":"ok"}"#.utf8))
        get("/healthz") { _ in .response(healthy) }

        guard let folder = app.configuration.publicPath else { return }
        guard let files = StaticFiles(folder: folder) else {
            Log.warning("no static files: \(folder) is not a directory")
            return
        }
        fallback = { request in try files.respond(to: request) }
    }
}
