import Synchronization

extension Publishers {
    /// A publisher that omits a specified number of elements before republishing subsequent elements.
    public struct Drop<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The number of elements to drop.
        public let count: Int

        /// Creates the publisher.
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber through an inner object that asks for the dropped elements up front.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // NB: as in Combine, a negative count traps when subscribed to, not when the publisher is made; the
            // downstream has its subscription before the upstream is subscribed to.
            precondition(count >= 0, "count must not be negative")
            let inner = DropInner<Upstream, S>(downstream: subscriber, count: count)
            subscriber.receive(subscription: inner)
            upstream.subscribe(inner)
        }
    }
}

extension Publisher {
    /// Omits the specified number of elements before republishing subsequent elements.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.dropFirst()   // 2, 3
    /// ```
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}

/// Combine's `dropFirst`: hands itself downstream, then asks the upstream for the elements it drops plus what
/// the downstream asked for meanwhile, in one request; a dropped element asks for nothing more. It keeps no
/// terminal state: every completion goes downstream.
private final class DropInner<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    // NB: @unchecked Sendable: the state is Mutex-guarded; `remaining` is touched only inside `receive` calls,
    // which Combine serializes.
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    var combineName: String { "Drop" }
    private let downstream: Downstream
    private var remaining: Int
    private let state = Mutex(DropState())

    init(downstream: Downstream, count: Int) {
        self.downstream = downstream
        remaining = count
    }

    /// The upstream's subscription is asked for what the downstream requested so far and the elements still to
    /// drop. A completion lets go of it (uncancelled), as Combine's: a later subscription is taken the same way.
    func receive(subscription: any Subscription) {
        let first = state.withLock { state -> Subscribers.Demand? in
            guard state.status.accept(subscription) else { return nil }
            defer { state.pending = .none }
            return state.pending + remaining
        }
        guard let first else { return subscription.cancel() }
        if first > 0 { subscription.request(first) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard remaining == 0 else {
            remaining -= 1
            return .none
        }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        state.withLock { $0.status = .awaiting }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { state -> (any Subscription)? in
            guard let upstream = state.status.subscription else {
                state.pending += demand
                return nil
            }
            return upstream
        }?.request(demand)
    }

    func cancel() {
        state.withLock { state -> (any Subscription)? in
            guard case .subscribed = state.status else { return nil }
            return state.status.terminate()
        }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct DropState: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    /// Requests made while no upstream subscription is held.
    var pending = Subscribers.Demand.none
}
