import Domain
import Foundation
import LibEvent
import Reactive
import Synchronization

extension HTTPClient: DataLoader {
    /// A publisher of one GET of `url`, as `URLSession.dataTaskPublisher(for:)`: the download starts on the
    /// first demand, delivers on the client's loop, and cancelling the subscription closes the connection.
    func dataTaskPublisher(for url: URL) -> AnyPublisher<(data: Data, response: LoadResponse), LoadFailure> {
        DataTaskPublisher(client: self, url: url).eraseToAnyPublisher()
    }
}

extension LoadResponse {
    /// The head of a client fetch, as the view models read it.
    init(_ response: HTTPClient.Response) {
        self.init(url: response.url, statusCode: response.statusCode, headerFields: response.headerFields)
    }
}

extension LoadFailure {
    /// A client failure, sorted as the seeds' error handling needs and in the client's words.
    init(_ failure: HTTPClient.Failure) {
        switch failure {
        case .unsupportedURL, .badURL: self.init(.invalidURL, failure.description)
        case .timedOut: self.init(.timedOut, failure.description)
        default: self.init(.other, failure.description)
        }
    }
}

/// One lazily started `HTTPClient` fetch per subscriber.
private struct DataTaskPublisher: Publisher {
    typealias Output = (data: Data, response: LoadResponse)
    typealias Failure = LoadFailure

    let client: HTTPClient
    let url: URL

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let downstream = Downstream(
            value: { _ = subscriber.receive($0) },
            completion: { subscriber.receive(completion: $0) }
        )
        subscriber.receive(subscription: DataTaskSubscription(client: client, url: url, downstream: downstream))
    }
}

/// The subscriber, reduced to the two calls a single-value publisher makes (keeps the subscription
/// non-generic, so the client's `Sendable` completion captures no generic metatype).
// NB: @unchecked Sendable: it lives in the subscription's Mutex and is taken out once to be called.
private struct Downstream: @unchecked Sendable {
    let value: ((data: Data, response: LoadResponse)) -> Void
    let completion: (Subscribers.Completion<LoadFailure>) -> Void
}

/// Starts the fetch on demand and hands its single result downstream.
private final class DataTaskSubscription: Subscription, @unchecked Sendable {
    // NB: @unchecked because all mutable state sits in `state`; the downstream is called outside the lock.

    private struct State {
        var downstream: Downstream?
        var task: HTTPClientTask?
        var started = false
    }

    private let client: HTTPClient
    private let url: URL
    private let state: Mutex<State>

    init(client: HTTPClient, url: URL, downstream: Downstream) {
        self.client = client
        self.url = url
        state = Mutex(State(downstream: downstream))
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > .none else { return }
        let start = state.withLock { state -> Bool in
            guard state.downstream != nil, !state.started else { return false }
            state.started = true
            return true
        }
        guard start else { return }
        let task = client.get(url) { [self] result in deliver(result) }
        let stillWanted = state.withLock { state -> Bool in
            guard state.downstream != nil else { return false }
            state.task = task
            return true
        }
        if !stillWanted { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> HTTPClientTask? in
            state.downstream = nil
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    private func deliver(_ result: Result<HTTPClient.Output, HTTPClient.Failure>) {
        let downstream = state.withLock { state -> Downstream? in
            defer {
                state.downstream = nil
                state.task = nil
            }
            return state.downstream
        }
        guard let downstream else { return }
        switch result {
        case .success(let output):
            downstream.value((data: output.data, response: LoadResponse(output.response)))
            downstream.completion(.finished)
        case .failure(let failure):
            downstream.completion(.failure(LoadFailure(failure)))
        }
    }
}
