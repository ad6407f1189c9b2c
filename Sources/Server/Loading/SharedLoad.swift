import Domain
import HTTP
import Reactive
import Synchronization

/// Concurrent loads of one resource share one upstream request: a refresh that arrives while another is in
/// flight waits for that one and gets its answer, so 150 callers at once cost one request upstream (and one
/// encoding of its result), not 150. A refresh after the shared one has answered starts a new request.
///
/// ```swift
/// let refresh = SharedLoad { posts.refresh() }
/// post("/posts/refresh") { _ in refresh.reply() }   // 200 [Post], or the NetworkError's 502/504
/// ```
final class SharedLoad: Sendable {
    private let start: @Sendable () -> Future<Response, Never>
    /// The answer of the load in flight; nil when none is.
    private let inFlight = Mutex<Future<Response, Never>?>(nil)

    /// `start` begins one load (it is only called when none is in flight).
    init<Value: Encodable & Sendable>(_ start: @escaping @Sendable () -> Future<Value, NetworkError>) {
        self.start = { Self.answer(start()) }
    }

    /// `start` begins one load and makes its response (a load that journals what it got answers once the
    /// entry is committed).
    init(responding start: @escaping @Sendable () -> Future<Response, Never>) {
        self.start = start
    }

    /// Answers with the load in flight, or with a new one: `200` and the value as JSON, or the
    /// `NetworkError` as its contract status (502/504).
    func reply() -> Reply {
        // NB: the check and the start happen under one lock, so two callers never both start a load.
        let (answer, started) = inFlight.withLock { current -> (Future<Response, Never>, Bool) in
            if let current { return (current, false) }
            let answer = start()
            current = answer
            return (answer, true)
        }
        if started {
            answer.subscribe(
                Subscribers.Sink(
                    receiveCompletion: { _ in },
                    receiveValue: { [weak self] _ in
                        self?.inFlight.withLock { current in if current === answer { current = nil } }
                    }))
        }
        // NB: a Future keeps its subscriber until it resolves, so the sinks need no storage.
        return .later { respond in
            answer.subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: respond))
        }
    }

    /// The response to `load`'s outcome, made once for every caller sharing it.
    private static func answer<Value: Encodable & Sendable>(
        _ load: Future<Value, NetworkError>
    ) -> Future<Response, Never> {
        Future { promise in
            load.subscribe(
                Subscribers.Sink(
                    receiveCompletion: { completion in
                        if case .failure(let error) = completion { promise(.success(Response(error: error))) }
                    },
                    receiveValue: { value in
                        promise(.success((try? Response.json(value)) ?? Response(error: .internalError)))
                    }))
        }
    }
}
