import Foundation
import HTTP
import Synchronization

extension LiveCollection {
    /// The answer to a `GET` with `Accept: text/event-stream`: the stream of `query`'s result (its text
    /// `key`, by default the request's query string). Refused with a 503 when the server holds its most live
    /// queries. A `Last-Event-ID` newer than this instance's events (another instance is ahead) waits until
    /// this instance caught up with it, as `/events` does.
    func reply(_ request: Request, query: Query, key: String? = nil) throws(HTTPError) -> Reply {
        try engine.checkRoom()
        let key = key ?? request.query.pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let lastEventID = LiveQueryEngine.lastEventID(of: request)
        let engine = engine
        return .stream(status: 200, headers: LiveQueryEngine.streamHeaders) { [self] stream in
            engine.opened()
            streams.add(1, ordering: .relaxed)
            stream.onClose { [self] in
                engine.closed()
                streams.subtract(1, ordering: .relaxed)
            }
            let connect: @Sendable () -> Void = { [self] in
                fanout(for: stream.loop).add(stream, query: query, key: key, lastEventID: lastEventID)
            }
            let connectOnLoop: @Sendable () -> Void = {
                stream.loop.execute {
                    guard !stream.isClosed else { return }
                    connect()
                }
            }
            if !isFollowed || needsOrder(query) {
                // NB: the first live query of a collection followed on demand reads its items (every key of a
                // large file) off the loop, and the first of a sort makes its sort's order there (from a kept
                // order, or by sorting every item); the loop goes on serving meanwhile.
                DispatchQueue.global().async { [self] in
                    follow()
                    prepareOrder(for: query)
                    guard let seen = lastEventID else { return connectOnLoop() }
                    engine.whenCaughtUp(with: seen, connectOnLoop)
                }
                return
            }
            guard let seen = lastEventID else { return connect() }
            engine.whenCaughtUp(with: seen, connectOnLoop)
        }
    }
}
