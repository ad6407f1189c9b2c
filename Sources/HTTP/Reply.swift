/// What a route handler answers: a response now, a response later, or a stream.
package enum Reply: Sendable {
    /// Sends a response for one request, exactly once, from any thread.
    package typealias Respond = @Sendable (Response) -> Void

    /// A complete response, sent at once.
    case response(Response)

    /// Work that answers later: `start` receives `respond`, which must be called exactly once, from any
    /// thread; the listener sends the response on the connection's loop.
    ///
    /// ```swift
    /// return .later { respond in
    ///     store.save(todo) { result in respond(...) }
    /// }
    /// ```
    case later(_ start: @Sendable (_ respond: @escaping Respond) -> Void)

    /// A chunked reply that stays open: the listener sends the status and `headers`, then calls `start` on
    /// the connection's loop with the stream.
    case stream(status: Int = 200, headers: HTTPHeaders, start: @Sendable (any HTTPStream) -> Void)

    /// 204 with no body.
    package static let noContent = Reply.response(.noContent)

    /// `HTTPError` as its contract body.
    package static func error(_ error: HTTPError) -> Reply {
        .response(Response(error: error))
    }

    /// `value` encoded as JSON.
    package static func json<T: Encodable>(_ value: T, status: Int = 200, headers: HTTPHeaders = [:]) throws -> Reply {
        .response(try .json(value, status: status, headers: headers))
    }
}
