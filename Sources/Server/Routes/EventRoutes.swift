import HTTP
import Storage

extension Router {
    /// `GET /events`: the live updates of every topic as Server-Sent Events (docs/api.md, "Live updates").
    mutating func addEventRoutes(_ app: App) {
        let hub = app.events
        let site = app.site
        let topics = site.topics
        get("/events") { request in
            let options = try EventRequest(request, known: topics)
            return .stream(status: 200, headers: Self.eventStreamHeaders) { stream in
                let connect: @Sendable () -> Void = {
                    hub.connect(stream, topics: options.topics, diff: options.diff, lastEventID: options.lastEventID)
                }
                guard let seen = options.lastEventID, seen > hub.lastEventID else { return connect() }
                // The client saw an event this instance has not applied yet (it lags behind the one the client
                // came from): held until this instance caught up, so it never gets a state older than its own.
                // Held clients share the catch-up query; an id nobody gave is served as unknown after 5 s.
                site.whenApplied(Int64(seen / EventIDSource.journalBlock), timeout: 5) { _ in
                    stream.loop.execute {
                        guard !stream.isClosed else { return }
                        connect()
                    }
                }
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
