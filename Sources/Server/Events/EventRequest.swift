import HTTP

/// The options of one `GET /events`: `?topics=`, `?diff=`, and the `Last-Event-ID` header (or
/// `?lastEventID=`, for a page that opens a new `EventSource`). Any other parameter is a 400, so a typo
/// (`?topic=todos`) is not silently a stream of every topic.
///
/// ```swift
/// let options = try EventRequest(Request(.get, "/events?topics=todos&diff=1"))
/// options.topics  // [.todos]
/// ```
struct EventRequest: Sendable, Equatable {
    /// The topics asked for (all when `topics` is absent).
    var topics: Set<EventTopic>
    /// Whether collection topics are sent as changes.
    var diff: Bool
    /// The id of the last event the client saw, from a reconnecting `EventSource`.
    var lastEventID: UInt64?

    /// The parameters `/events` takes.
    static let parameterNames = ["topics", "diff", "lastEventID"]

    /// Reads the options; an unknown parameter or topic, or a bad `diff` value, is a 400 naming it.
    init(_ request: Request, known: [EventTopic] = EventTopic.allCases) throws(HTTPError) {
        if let unknown = request.query.names.first(where: { !Self.parameterNames.contains($0) }) {
            let hint = unknown.lowercased() == "topic" ? " (did you mean 'topics'?)" : ""
            throw .badRequest(
                "unknown parameter '\(unknown)'\(hint); /events takes \(Self.parameterNames.joined(separator: ", "))",
                code: "invalid_query")
        }
        topics = try EventTopic.parse(request.query.all("topics"), known: known)
        switch request.query["diff"] {
        case nil, "0", "false": diff = false
        case "", "1", "true": diff = true
        case let value?:
            throw .badRequest("diff must be 1 or 0, not \"\(value)\"", code: "bad_diff")
        }
        // NB: a malformed Last-Event-ID is treated as absent (a first connect), as a browser would not
        // send one of ours.
        lastEventID = (request.headers["Last-Event-ID"] ?? request.query["lastEventID"])
            .flatMap { UInt64($0.filter { $0 != " " }) }
    }
}
