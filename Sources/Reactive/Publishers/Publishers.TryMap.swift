import Synchronization

extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided error-throwing
    /// closure.
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        /// Any error thrown by the closure, or the upstream's failure.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The error-throwing closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) throws -> Output

        /// Creates a publisher that transforms elements with an error-throwing closure.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through a throwing inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TryMapInner<Upstream.Output, Upstream.Failure, S>(downstream: subscriber, transform: transform))
        }
    }
}

extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided error-throwing closure.
    ///
    /// ```swift
    /// dataTask.tryMap { output in
    ///     guard (output.response as? HTTPURLResponse)?.statusCode == 200 else { throw NetworkError.responseError }
    ///     return output.data
    /// }
    /// ```
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
        Publishers.TryMap(upstream: self, transform: transform)
    }
}

extension Publishers.TryMap {
    /// Fuses the throwing transform with another into one `TryMap` of the same upstream, as Combine does.
    ///
    /// ```swift
    /// subject.tryMap(parse).map { $0 * 2 }   // one TryMap of `subject`
    /// ```
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap<Upstream, T>(upstream: upstream) { transform(try first($0)) }
    }

    /// Fuses two throwing transforms into one `TryMap` of the same upstream.
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap<Upstream, T>(upstream: upstream) { try transform(try first($0)) }
    }
}

/// The subscriber of `tryMap` ("TryMap"), as Combine's: every value that comes is transformed and passed on,
/// even after a throw or a cancel; each throw fails the downstream (the first also cancels the upstream). The
/// upstream's completion goes downstream only while subscribed; a cancel before the subscription does nothing.
// NB: @unchecked Sendable: the status is Mutex-guarded; the transform and the downstream are called outside it.
private final class TryMapInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Failure == any Error {
    typealias Failure = UpstreamFailure

    private let downstream: Downstream
    private let transform: (Input) throws -> Downstream.Input
    private let status = Mutex(SubscriptionStatus.awaiting)
    var combineName: String { "TryMap" }

    init(downstream: Downstream, transform: @escaping (Input) throws -> Downstream.Input) {
        self.downstream = downstream
        self.transform = transform
    }

    func receive(subscription: any Subscription) {
        guard status.withLock({ $0.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        do {
            return downstream.receive(try transform(input))
        } catch {
            endSubscription()?.cancel()
            downstream.receive(completion: .failure(error))
            return .none
        }
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard endSubscription() != nil else { return }
        switch completion {
        case .finished: downstream.receive(completion: .finished)
        case .failure(let error): downstream.receive(completion: .failure(error))
        }
    }

    func request(_ demand: Subscribers.Demand) {
        status.withLock { $0.subscription }?.request(demand)
    }

    func cancel() {
        endSubscription()?.cancel()
    }

    /// Ends the subscription, if one is held; returns it.
    private func endSubscription() -> (any Subscription)? {
        status.withLock { status -> (any Subscription)? in
            guard let upstream = status.subscription else { return nil }
            status = .terminal
            return upstream
        }
    }
}
