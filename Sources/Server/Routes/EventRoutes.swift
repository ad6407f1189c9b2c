import HTTP

extension Router {
    /// `GET /events`: the live updates of every topic as Server-Sent Events (docs/api.md, "Live updates").
    mutating func addEventRoutes(_ app: App) {
        let hub = app.events
        get("/events") { request in
            let options = try EventRequest(request)
            return .stream(status: 200, headers: Self.eventStreamHeaders) { stream in
                hub.connect(stream, topics: options.topics, diff: options.diff, lastEventID: options.lastEventID)
            }
        }
    }

    /// The headers of an event stream: no caching, and no buffering in a proxy such as nginx.
    private static let eventStreamHeaders: HTTPHeaders = [
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no",
    ]
}
