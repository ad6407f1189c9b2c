package import Foundation
package import Reactive
import Synchronization

/// Seed 002's `NetworkManager`: loads a jsonplaceholder resource through a `Future`.
///
/// The pipeline is the seed's: `dataTaskPublisher(for:)`, the status check in `tryMap`, `decode`, and a
/// `sink` whose completion sorts failures into `NetworkError` and fulfils the promise.
///
///     manager.getData(endPoint: .posts, type: Post.self)
///         .sink(receiveCompletion: { print($0) }, receiveValue: { posts in print(posts.count) })
package final class NetworkManager: Sendable {
    /// The upstream, e.g. `https://jsonplaceholder.typicode.com`; nil makes every load `invalidURL`.
    package let baseURL: URL?
    private let loader: any DataLoader
    /// The loads in flight, as the seed's `cancellables` (but each leaves once it completes).
    private let inFlight = Mutex(InFlight())

    /// A manager for `baseURL`, loading through `loader`.
    package init(baseURL: URL?, loader: any DataLoader) {
        self.baseURL = baseURL
        self.loader = loader
    }

    /// The URL of `endPoint`: the base URL with the endpoint's name as one more path component.
    package func url(for endPoint: Endpoint) -> URL? {
        guard let baseURL, let scheme = baseURL.scheme?.lowercased(), ["http", "https"].contains(scheme),
            baseURL.host?.isEmpty == false
        else { return nil }
        return baseURL.appendingPathComponent(endPoint.rawValue)
    }

    /// Loads `URL/endPoint` as `[T]`. The request starts at once (a `Future` is eager) and its result is
    /// kept for every subscriber.
    package func getData<T: Decodable>(endPoint: Endpoint, type: T.Type) -> Future<[T], NetworkError> {
        Future<[T], NetworkError> { [self] promise in
            guard let url = url(for: endPoint) else {
                return promise(.failure(.invalidURL))
            }
            let key = inFlight.withLock { $0.begin() }
            let cancellable = loader.dataTaskPublisher(for: url)
                .tryMap { (data, response) -> Data in
                    guard 200...299 ~= response.statusCode else {
                        throw NetworkError.responseError
                    }
                    return data
                }
                .decode(type: [T].self, decoder: JSONDecoder())
                .sink(
                    receiveCompletion: { [self] completion in
                        if case .failure(let error) = completion {
                            promise(.failure(NetworkError(error)))
                        }
                        // NB: the subscription is released outside the lock (its deinit cancels).
                        let ended = inFlight.withLock { $0.end(key) }
                        withExtendedLifetime(ended) {}
                    },
                    receiveValue: { promise(.success($0)) }
                )
            let unstored = inFlight.withLock { $0.store(cancellable, for: key) }
            withExtendedLifetime(unstored) {}
        }
    }
}

/// The subscriptions of the loads in flight; a load that ends before its subscription is stored is
/// never stored.
private struct InFlight: ~Copyable {
    private var next = 0
    private var running: [Int: AnyCancellable?] = [:]

    mutating func begin() -> Int {
        next += 1
        running[next] = .some(nil)
        return next
    }

    /// Keeps `cancellable` while its load runs; hands it back when the load has ended already.
    mutating func store(_ cancellable: AnyCancellable, for key: Int) -> AnyCancellable? {
        guard running[key] != nil else { return cancellable }
        running[key] = cancellable
        return nil
    }

    /// Forgets the load, handing back its subscription (to be released by the caller).
    mutating func end(_ key: Int) -> AnyCancellable? {
        running.removeValue(forKey: key) ?? nil
    }
}
