package import Reactive

extension NetworkManager {
    /// Loads `URL/endPoint` and, on success, hands the list to `show` before the returned future delivers
    /// it; a failure shows nothing. The seed's `fetchData()` with `posts.send(data)`.
    package func getData<T: Decodable & Sendable>(
        endPoint: Endpoint, type: T.Type, showing show: @escaping @Sendable ([T]) -> Void
    ) -> Future<[T], NetworkError> {
        let load = getData(endPoint: endPoint, type: T.self)
        // NB: subscribed first, so the emission comes before the caller hears of the result; a Future keeps
        // this subscriber until it resolves, so nothing needs to store it.
        load.subscribe(Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { show($0) }))
        return load
    }
}
