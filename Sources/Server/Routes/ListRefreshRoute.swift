import Domain
import HTTP
import Reactive
import Storage

extension Router {
    /// `POST path` (`/posts/refresh`, `/albums/refresh`): fetches once (the embedded set, or the upstream through
    /// the view model's own network manager) and commits what came as the input `topic`, answered 200 with the
    /// list once applied here (the first request's, when its key was committed before). Refreshes without a key
    /// that arrive while one is in flight share it (one upstream request, one entry); a keyed one is its own
    /// (its key is committed with it).
    mutating func addListRefresh<Item: Encodable & Sendable>(
        _ path: String, _ topic: SeedInput.Topic, journal: SeedStore, embedded: [Item],
        upstream: @escaping @Sendable () -> Future<[Item], NetworkError>?,
        payload: @escaping @Sendable ([Item]?) -> SeedInput.Payload,
        list: @escaping @Sendable (SeedInput.Payload) -> [Item]?
    ) {
        let refresh: @Sendable (String?) -> Future<Response, Never> = { key in
            Self.refresh(
                journal, topic, key: key, embedded: embedded, upstream: upstream(), payload: payload, list: list)
        }
        let shared = SharedLoad(responding: { refresh(nil) })
        post(path) { request in
            let key = try request.idempotencyKey()
            try request.acceptNoInput()
            guard let key else { return shared.reply() }
            return .later { respond in
                refresh(key).subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: respond))
            }
        }
    }

    /// Commits a refresh: the embedded set as an input (every instance reloads it), or the list the upstream
    /// gave this server (every instance shows that list); resolves to 200 with the list applied here.
    private static func refresh<Item: Encodable & Sendable>(
        _ journal: SeedStore, _ topic: SeedInput.Topic, key: String?, embedded: [Item],
        upstream: Future<[Item], NetworkError>?, payload: @escaping @Sendable ([Item]?) -> SeedInput.Payload,
        list: @escaping @Sendable (SeedInput.Payload) -> [Item]?
    ) -> Future<Response, Never> {
        Future { promise in
            // NB: Reactive's Future takes its promise under its lock, from any thread (Combine's has no @Sendable).
            nonisolated(unsafe) let promise = promise
            let commit: @Sendable ([Item]?) -> Void = { items in
                SeedInput.append(topic, payload(items), key: key, to: journal) { result in
                    promise(.success(Response.committed(result) { try .json(list($0.payload) ?? embedded) }))
                }
            }
            guard let upstream else { return commit(nil) }
            upstream.subscribe(
                Subscribers.Sink(
                    receiveCompletion: { completion in
                        if case .failure(let error) = completion { promise(.success(Response(error: error))) }
                    },
                    receiveValue: { commit($0) }))
        }
    }
}
