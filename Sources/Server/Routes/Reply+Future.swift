import Domain
import HTTP
import Reactive

extension Reply {
    /// Answers later with what `load` delivers: `200` and the value as JSON, or the `NetworkError` as its
    /// contract status (502/504).
    ///
    /// ```swift
    /// post("/posts/refresh") { _ in .load(posts.refresh()) }
    /// ```
    static func load<T: Encodable & Sendable>(_ load: Future<T, NetworkError>) -> Reply {
        .later { respond in
            // NB: a Future keeps its subscriber until it resolves, so the sink needs no storage.
            load.subscribe(
                Subscribers.Sink(
                    receiveCompletion: { completion in
                        if case .failure(let error) = completion { respond(Response(error: error)) }
                    },
                    receiveValue: { value in
                        do {
                            respond(try .json(value))
                        } catch {
                            respond(Response(error: .internalError))
                        }
                    }
                ))
        }
    }
}
