public import Foundation
public import Reactive
import Synchronization

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

extension URLSession {
    /// Returns a publisher that wraps a URL session data task for a given URL.
    ///
    /// ```swift
    /// URLSession.shared.dataTaskPublisher(for: url).map(\.data).decode(type: [Post].self, decoder: JSONDecoder())
    /// ```
    public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
        DataTaskPublisher(request: URLRequest(url: url), session: self)
    }

    /// Returns a publisher that wraps a URL session data task for a given URL request.
    ///
    /// ```swift
    /// URLSession.shared.dataTaskPublisher(for: request)
    /// ```
    public func dataTaskPublisher(for request: URLRequest) -> DataTaskPublisher {
        DataTaskPublisher(request: request, session: self)
    }

    /// A publisher that delivers the results of performing URL session data tasks: the task starts on the
    /// first demand and is cancelled with the subscription.
    public struct DataTaskPublisher: Publisher, @unchecked Sendable {
        /// The body and response of a finished task.
        public typealias Output = (data: Data, response: URLResponse)
        /// Transport errors (not HTTP status codes).
        public typealias Failure = URLError

        /// The URL request performed by the data task associated with this publisher.
        public let request: URLRequest
        /// The URL session that performs the data task associated with this publisher.
        public let session: URLSession

        /// Creates a data task publisher from the provided URL request and URL session.
        public init(request: URLRequest, session: URLSession) {
            self.request = request
            self.session = session
        }

        /// Attaches the subscriber; the request goes out when it first asks for a value.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            subscriber.receive(subscription: DataTaskSubscription(publisher: self, downstream: subscriber))
        }
    }
}

/// Runs one data task for one subscriber.
// NB: @unchecked Sendable: all state is Mutex-guarded; the session's completion handler runs on its own queue.
private final class DataTaskSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
    // Described as Combine describes its subscriptions: the name, and a mirror without children.
    var description: String { "DataTaskPublisher" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
    var playgroundDescription: Any { description }
    private let publisher: URLSession.DataTaskPublisher
    private let state: Mutex<DataTaskState<Downstream>>

    init(publisher: URLSession.DataTaskPublisher, downstream: Downstream) {
        self.publisher = publisher
        state = Mutex(DataTaskState(downstream: downstream))
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        let start = state.withLock { state -> Bool in
            guard state.downstream != nil, state.task == nil else { return false }
            let finisher: any DataTaskFinishing = self
            state.task = publisher.session.dataTask(with: publisher.request) { data, response, error in
                finisher.finish(data: data, response: response, error: error)
            }
            return true
        }
        if start { state.withLock { $0.task }?.resume() }
    }

    func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
        guard
            let downstream = state.withLock({ state -> Downstream? in
                defer { state.downstream = nil; state.task = nil }
                return state.downstream
            })
        else { return }
        if let error {
            downstream.receive(completion: .failure(DataTaskSubscription.urlError(error)))
        } else if let response {
            _ = downstream.receive((data ?? Data(), response))
            downstream.receive(completion: .finished)
        } else {
            downstream.receive(completion: .failure(URLError(.badServerResponse)))
        }
    }

    private static func urlError(_ error: any Error) -> URLError {
        if let urlError = error as? URLError { return urlError }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: nsError.code) {
            return URLError(code)
        }
        return URLError(.unknown)
    }

    func cancel() {
        state.withLock { state -> URLSessionDataTask? in
            state.downstream = nil
            defer { state.task = nil }
            return state.task
        }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its subscription's Mutex.
private struct DataTaskState<Downstream>: @unchecked Sendable {
    var downstream: Downstream?
    var task: URLSessionDataTask?
}

/// What the session's completion handler calls (an existential, so the handler captures no generic type).
private protocol DataTaskFinishing: Sendable {
    func finish(data: Data?, response: URLResponse?, error: (any Error)?)
}

extension DataTaskSubscription: DataTaskFinishing {}
