import Synchronization

extension Publishers {
    /// A publisher that attempts to recreate its subscription to a failed upstream publisher.
    public struct Retry<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum number of retry attempts to perform; nil retries indefinitely.
        public let retries: Int?

        /// Creates a publisher that attempts to recreate its subscription to a failed upstream publisher.
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        /// Attaches the subscriber; each failure resubscribes to the upstream while retries remain.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(RetryInner(upstream: upstream, retries: retries, downstream: subscriber))
        }
    }
}

extension Publisher {
    /// Attempts to recreate a failed subscription with the upstream publisher up to the number of times you
    /// specify.
    ///
    /// ```swift
    /// fetch.retry(3).replaceError(with: [])
    /// ```
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}

/// The subscriber of `retry` ("Retry"), as Combine's: one object subscribes to the upstream again after each
/// failure (without end when `retries` is nil or negative) and is the downstream's subscription throughout,
/// handed over with the first upstream subscription. It counts the downstream's demand (a value beyond it
/// traps), asks each new upstream subscription for what is outstanding, and asks for the demand a value
/// returns from the upstream itself (the upstream is told `.none`). A finish, even before a subscription, and
/// the last failure go downstream; nothing passes after them. Once it has ended (or is cancelled) it lets go of
/// the upstream publisher and the downstream, as Combine's: a subject it retries holds it, and it would hold the
/// subject.
// NB: @unchecked Sendable: all state is Mutex-guarded; the upstream, the downstream and the subscriptions are
// called outside the lock.
final class RetryInner<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription, CombineDescribed,
    @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let state: Mutex<RetryState<Upstream, Downstream>>
    var combineName: String { "Retry" }

    init(upstream: Upstream, retries: Int?, downstream: Downstream) {
        state = Mutex(
            RetryState(parts: (upstream, downstream), remaining: retries.flatMap { $0 < 0 ? nil : $0 }))
    }

    func receive(subscription: any Subscription) {
        let step = state.withLock { state -> (first: Downstream?, demand: Subscribers.Demand)? in
            guard let parts = state.parts, state.upstream.accept(subscription) else { return nil }
            defer { state.handedDownstream = true }
            return (state.handedDownstream ? nil : parts.downstream, state.demand)
        }
        guard let step else { return subscription.cancel() }
        step.first?.receive(subscription: self)
        if step.demand > 0 { subscription.request(step.demand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let downstream = state.withLock { state -> Downstream? in
            guard let parts = state.parts else { return nil }
            precondition(state.demand > 0, "a value beyond the demand")
            state.demand -= 1
            return parts.downstream
        }
        guard let downstream else { return .none }
        let more = downstream.receive(input)
        guard more > 0 else { return .none }
        let upstream = state.withLock { state -> (any Subscription)? in
            state.demand += more
            return state.upstream.subscription
        }
        upstream?.request(more)
        return .none
    }

    /// A failure with retries left subscribes again; one that comes while that subscribe call is still running
    /// (the upstream failed at once) is retried after it returns, so retries loop instead of nesting.
    func receive(completion: Subscribers.Completion<Failure>) {
        let step = state.withLock { state -> RetryStep<Upstream, Downstream> in
            guard let parts = state.parts else { return .ignore }
            guard case .failure = completion, state.remaining.map({ $0 > 0 }) ?? true else {
                state.parts = nil
                state.upstream = .terminal
                return .complete(parts.downstream)
            }
            state.remaining = state.remaining.map { $0 - 1 }
            state.upstream = .awaiting
            if state.subscribing {
                state.resubscribe = true
                return .ignore
            }
            state.subscribing = true
            return .subscribe(parts.upstream)
        }
        switch step {
        case .ignore: return
        case .complete(let downstream): downstream.receive(completion: completion)
        case .subscribe(let upstream):
            repeat {
                upstream.subscribe(self)
            } while state.withLock { state in
                defer { state.resubscribe = false }
                state.subscribing = state.resubscribe
                return state.resubscribe
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        let upstream = state.withLock { state -> (any Subscription)? in
            guard state.parts != nil else { return nil }
            state.demand += demand
            return state.upstream.subscription
        }
        upstream?.request(demand)
    }

    func cancel() {
        // NB: the downstream and the publisher are released after the lock, since their deinit may call back.
        let (subscription, released) = state.withLock { state -> ((any Subscription)?, (Upstream, Downstream)?) in
            defer { state.parts = nil }
            return (state.parts == nil ? nil : state.upstream.terminate(), state.parts)
        }
        subscription?.cancel()
        withExtendedLifetime(released) {}
    }
}

/// What a retry does with a completion of its upstream.
private enum RetryStep<Upstream, Downstream> {
    case ignore
    case complete(Downstream)
    case subscribe(Upstream)
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct RetryState<Upstream, Downstream>: @unchecked Sendable {
    /// The publisher to subscribe to again and the downstream; nil once a completion went downstream or the
    /// downstream cancelled.
    var parts: (upstream: Upstream, downstream: Downstream)?
    /// Retries left; nil retries without end.
    var remaining: Int?
    var upstream = SubscriptionStatus.awaiting
    var demand = Subscribers.Demand.none
    /// The downstream has its subscription (it gets it once, with the first upstream subscription).
    var handedDownstream = false
    /// A subscribe call for a retry is running.
    var subscribing = false
    /// The upstream failed again inside that call: subscribe once more when it returns.
    var resubscribe = false
}
