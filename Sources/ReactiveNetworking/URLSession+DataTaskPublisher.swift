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

/// Runs one data task for one subscriber, as Combine's: the task is made on the first request and resumed on
/// every request; it ends (letting go of the publisher, the downstream and the task) on its result or a cancel.
// NB: @unchecked Sendable: all state is Mutex-guarded; the session's completion handler runs on its own queue.
private final class DataTaskSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
    var description: String { "DataTaskPublisher" }
    var customMirror: Mirror {
        let state = state.withLock { $0 }
        let children: [Mirror.Child] = [
            ("task", state.task as Any), ("downstream", state.downstream as Any),
            ("parent", state.parent as Any), ("demand", state.demand),
        ]
        return Mirror(self, children: children)
    }
    var playgroundDescription: Any { description }
    private let state: Mutex<DataTaskState<Downstream>>

    init(publisher: URLSession.DataTaskPublisher, downstream: Downstream) {
        state = Mutex(DataTaskState(parent: publisher, downstream: downstream))
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let task = state.withLock { state -> URLSessionDataTask? in
            guard let parent = state.parent else { return nil }
            if state.task == nil {
                let finisher: any DataTaskFinishing = self
                state.task = parent.session.dataTask(with: parent.request) { data, response, error in
                    finisher.finish(data: data, response: response, error: error)
                }
            }
            state.demand += demand
            return state.task
        }
        task?.resume()
    }

    func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
        guard
            let downstream = state.withLock({ state -> Downstream? in
                guard state.demand > 0, state.parent != nil else { return nil }
                defer { state = DataTaskState(parent: nil, downstream: nil) }
                return state.downstream
            })
        else { return }
        switch (response, error) {
        case (let response?, nil):
            _ = downstream.receive((data ?? Data(), response))
            downstream.receive(completion: .finished)
        case (_, let error?):
            downstream.receive(completion: .failure(DataTaskSubscription.urlError(error)))
        case (nil, nil):
            // Combine's answer to a handler called with neither a response nor an error.
            downstream.receive(completion: .failure(URLError(.unknown)))
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
            guard state.parent != nil else { return nil }
            defer { state = DataTaskState(parent: nil, downstream: nil) }
            return state.task
        }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its subscription's Mutex.
private struct DataTaskState<Downstream>: @unchecked Sendable {
    /// The publisher until the subscription ends (nil after its result or a cancel).
    var parent: URLSession.DataTaskPublisher?
    var downstream: Downstream?
    var demand = Subscribers.Demand.none
    var task: URLSessionDataTask?
}

/// What the session's completion handler calls (an existential, so the handler captures no generic type).
private protocol DataTaskFinishing: Sendable {
    func finish(data: Data?, response: URLResponse?, error: (any Error)?)
}

extension DataTaskSubscription: DataTaskFinishing {}
