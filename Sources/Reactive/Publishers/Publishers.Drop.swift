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
            precondition(count >= 0, "count must not be negative")
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber through an inner object that asks for the dropped elements up front.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: DropInner<Upstream, S>(downstream: subscriber, count: count))
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
    private let count: Int
    private var remaining: Int
    private let state = Mutex(DropState())

    init(downstream: Downstream, count: Int) {
        self.downstream = downstream
        self.count = count
        remaining = count
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { $0.status.accept(subscription) }
        guard accepted else { return subscription.cancel() }
        downstream.receive(subscription: self)
        let first = state.withLock { state -> Subscribers.Demand in
            state.started = true
            defer { state.pending = .none }
            return state.pending + count
        }
        if first > 0 { subscription.request(first) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard remaining == 0 else {
            remaining -= 1
            return .none
        }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { state -> (any Subscription)? in
            guard state.started else {
                state.pending += demand
                return nil
            }
            return state.status.subscription
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
    /// Whether the first request has gone upstream (until then, the downstream's requests add up here).
    var started = false
    var pending = Subscribers.Demand.none
}
