import HTTP

extension Router {
    /// `GET /livestate.js`: the client of a live query (`live(url, onItems)`), an ES module the built-in pages
    /// import and a front end may import too (docs/testing-a-front-end.md), for seeds and data files alike.
    mutating func addLiveClientRoutes() {
        let module = Response(
            status: 200,
            headers: [
                "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache",
                "X-Content-Type-Options": "nosniff",
            ],
            body: PackageResources.livestate_js)
        get("/livestate.js") { _ in .response(module) }
    }
}
