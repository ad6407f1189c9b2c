extension Router {
    /// `GET /healthz`, and the static files of `--public` for every other GET.
    mutating func addSystemRoutes(_ app: App) {
        let healthy = Response.json(encoded: Array(#"{"status":"ok"}"#.utf8))
        get("/healthz") { _ in .response(healthy) }
    }
}
