import Synchronization

extension Publishers {
    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher with
    /// another publisher.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = NewPublisher.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// A closure that accepts the upstream failure as input and returns a publisher to replace the upstream.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that handles errors from an upstream publisher by replacing it.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber; on failure it is moved over to the handler's publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let handler = handler
            upstream.subscribe(CatchInner<Upstream.Output, Upstream.Failure, S>(downstream: subscriber) { error in
                .success(handler(error).eraseToAnyPublisher())
            })
        }
    }

    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher with
    /// another publisher or producing a new error.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// Any error: the handler may throw.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// An error-throwing closure that returns a publisher to replace the upstream.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that handles errors by replacing the upstream or throwing a new error.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber; on failure it is moved over to the handler's publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let handler = handler
            upstream.subscribe(CatchInner<Upstream.Output, Upstream.Failure, S>(downstream: subscriber) { error in
                do {
                    return .success(try handler(error).mapError { $0 as any Error }.eraseToAnyPublisher())
                } catch {
                    return .failure(error)
                }
            })
        }
    }
}

extension Publisher {
    /// Handles errors from an upstream publisher by replacing it with another publisher.
    ///
    /// ```swift
    /// fetch.catch { _ in Just([]) }
    /// ```
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
    where Output == P.Output {
        Publishers.Catch(upstream: self, handler: handler)
    }

    /// Handles errors from an upstream publisher by either replacing it with another publisher or throwing a
    /// new error.
    ///
    /// ```swift
    /// fetch.tryCatch { error in guard retryable(error) else { throw error }; return fetch }
    /// ```
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
    where Output == P.Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}

/// Feeds the downstream from the upstream, then (after a failure) from the replacement publisher, carrying
/// the outstanding demand over.
private final class CatchInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
where Downstream.Input == Input {
    typealias Failure = UpstreamFailure
    typealias Replacement = Result<AnyPublisher<Input, Downstream.Failure>, Downstream.Failure>

    private let downstream: Downstream
    private let handler: (UpstreamFailure) -> Replacement
    private let state = Mutex(CatchState())

    init(downstream: Downstream, handler: @escaping (UpstreamFailure) -> Replacement) {
        self.downstream = downstream
        self.handler = handler
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard case .awaiting = state.status else { return false }
            state.status = .subscribed(subscription)
            return true
        }
        guard accepted else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand { deliver(input) }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard state.withLock({ $0.status.subscription != nil && !$0.replaced }) else { return }
        switch completion {
        case .finished:
            state.withLock { $0.status = .terminal }
            downstream.receive(completion: .finished)
        case .failure(let error):
            state.withLock { state in
                state.status = .awaiting
                state.replaced = true
            }
            switch handler(error) {
            case .success(let publisher):
                publisher.subscribe(CatchReplacement(owner: self))
            case .failure(let error):
                state.withLock { $0.status = .terminal }
                downstream.receive(completion: .failure(error))
            }
        }
    }

    fileprivate func deliver(_ input: Input) -> Subscribers.Demand {
        state.withLock { $0.demand -= 1 }
        let more = downstream.receive(input)
        if more > 0 { state.withLock { $0.demand += more } }
        return more
    }

    fileprivate func replacementSubscribed(_ subscription: any Subscription) {
        let demand = state.withLock { state -> Subscribers.Demand? in
            guard case .awaiting = state.status else { return nil }
            state.status = .subscribed(subscription)
            return state.demand
        }
        guard let demand else { return subscription.cancel() }
        if demand > 0 { subscription.request(demand) }
    }

    fileprivate func replacementCompleted(_ completion: Subscribers.Completion<Downstream.Failure>) {
        guard state.withLock({ $0.status.terminate() }) != nil else { return }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { state -> (any Subscription)? in
            state.demand += demand
            return state.status.subscription
        }?.request(demand)
    }

    func cancel() {
        state.withLock { $0.status.terminate() }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct CatchState: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    var demand = Subscribers.Demand.none
    var replaced = false
}

/// Subscribes to the replacement publisher on behalf of a `CatchInner`.
private struct CatchReplacement<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber
where Downstream.Input == Input {
    typealias Failure = Downstream.Failure
    let owner: CatchInner<Input, UpstreamFailure, Downstream>
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: any Subscription) { owner.replacementSubscribed(subscription) }
    func receive(_ input: Input) -> Subscribers.Demand { owner.deliver(input) }
    func receive(completion: Subscribers.Completion<Failure>) { owner.replacementCompleted(completion) }
}
