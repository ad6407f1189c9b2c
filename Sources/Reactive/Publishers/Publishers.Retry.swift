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
/// the last failure go downstream; nothing passes after them.
// NB: @unchecked Sendable: all state is Mutex-guarded; the upstream, the downstream and the subscriptions are
// called outside the lock.
final class RetryInner<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription, CombineDescribed,
    @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let upstream: Upstream
    private let downstream: Downstream
    private let state: Mutex<RetryState>
    var combineName: String { "Retry" }

    init(upstream: Upstream, retries: Int?, downstream: Downstream) {
        self.upstream = upstream
        self.downstream = downstream
        state = Mutex(RetryState(remaining: retries.flatMap { $0 < 0 ? nil : $0 }))
    }

    func receive(subscription: any Subscription) {
        let step = state.withLock { state -> (first: Bool, demand: Subscribers.Demand)? in
            guard !state.ended, state.upstream.accept(subscription) else { return nil }
            defer { state.handedDownstream = true }
            return (!state.handedDownstream, state.demand)
        }
        guard let step else { return subscription.cancel() }
        if step.first { downstream.receive(subscription: self) }
        if step.demand > 0 { subscription.request(step.demand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let live = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            precondition(state.demand > 0, "a value beyond the demand")
            state.demand -= 1
            return true
        }
        guard live else { return .none }
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
        let step = state.withLock { state -> RetryStep in
            guard !state.ended else { return .ignore }
            guard case .failure = completion, state.remaining.map({ $0 > 0 }) ?? true else {
                state.ended = true
                state.upstream = .terminal
                return .complete
            }
            state.remaining = state.remaining.map { $0 - 1 }
            state.upstream = .awaiting
            if state.subscribing {
                state.resubscribe = true
                return .ignore
            }
            state.subscribing = true
            return .subscribe
        }
        switch step {
        case .ignore: return
        case .complete: downstream.receive(completion: completion)
        case .subscribe:
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
            guard !state.ended else { return nil }
            state.demand += demand
            return state.upstream.subscription
        }
        upstream?.request(demand)
    }

    func cancel() {
        state.withLock { state -> (any Subscription)? in
            guard !state.ended else { return nil }
            state.ended = true
            return state.upstream.terminate()
        }?.cancel()
    }
}

/// What a retry does with a completion of its upstream.
private enum RetryStep {
    case ignore
    case complete
    case subscribe
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct RetryState: @unchecked Sendable {
    /// Retries left; nil retries without end.
    var remaining: Int?
    var upstream = SubscriptionStatus.awaiting
    var demand = Subscribers.Demand.none
    /// The downstream has its subscription (it gets it once, with the first upstream subscription).
    var handedDownstream = false
    /// A completion went downstream, or the downstream cancelled.
    var ended = false
    /// A subscribe call for a retry is running.
    var subscribing = false
    /// The upstream failed again inside that call: subscribe once more when it returns.
    var resubscribe = false
}
