import Synchronization

extension Publishers {
    /// A publisher that replaces any errors in the stream with a provided element.
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// This publisher never fails.
        public typealias Failure = Never

        /// The element with which to replace errors from the upstream publisher.
        public let output: Upstream.Output
        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that replaces any errors in the stream with a provided element.
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber; a failure becomes the replacement element (when demanded), then finished.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ReplaceErrorInner<Upstream, S>(downstream: subscriber, output: output))
        }
    }
}

extension Publisher {
    /// Replaces any errors in the stream with the provided element.
    ///
    /// ```swift
    /// fetch.replaceError(with: []).assign(to: \.items, on: model)
    /// ```
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}

/// The downstream's subscription: counts the demand the downstream has left, so that a failure becomes the
/// replacement element at once when there is demand, or on the next request when there is none. As
/// Combine's: a value beyond the demand traps, anything before the subscription is ignored.
private final class ReplaceErrorInner<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Never {
    // NB: @unchecked Sendable: the state is Mutex-guarded; the downstream is called outside the lock.
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    var combineName: String { "ReplaceError" }
    private let downstream: Downstream
    private let output: Upstream.Output
    private let state = Mutex(ReplaceErrorState())

    init(downstream: Downstream, output: Upstream.Output) {
        self.downstream = downstream
        self.output = output
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { $0.status.accept(subscription) }
        if accepted { downstream.receive(subscription: self) } else { subscription.cancel() }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let live = state.withLock { state -> Bool in
            guard case .subscribed = state.status else { return false }
            precondition(state.demand > 0, "A value arrived beyond the demand")
            state.demand -= 1
            return true
        }
        guard live else { return .none }
        let more = downstream.receive(input)
        if more > 0 { state.withLock { $0.demand += more } }
        return more
    }

    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        let replace = state.withLock { state -> Bool? in
            guard case .subscribed = state.status else { return nil }
            state.status = .terminal
            guard case .failure = completion else { return false }
            guard state.demand > 0 else {
                state.failedWithoutDemand = true
                return nil
            }
            return true
        }
        switch replace {
        case nil: return
        case true?: finish(replacing: true)
        case false?: finish(replacing: false)
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (replace, upstream) = state.withLock { state -> (Bool, (any Subscription)?) in
            if state.failedWithoutDemand {
                state.failedWithoutDemand = false
                return (true, nil)
            }
            state.demand += demand
            return (false, state.status.subscription)
        }
        if replace { finish(replacing: true) } else { upstream?.request(demand) }
    }

    func cancel() {
        state.withLock { state -> (any Subscription)? in
            state.failedWithoutDemand = false
            guard case .subscribed = state.status else { return nil }
            return state.status.terminate()
        }?.cancel()
    }

    private func finish(replacing: Bool) {
        if replacing { _ = downstream.receive(output) }
        downstream.receive(completion: .finished)
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct ReplaceErrorState: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    /// What the downstream has asked for and not yet received.
    var demand = Subscribers.Demand.none
    /// The upstream failed while the downstream had no demand: the replacement goes on the next request.
    var failedWithoutDemand = false
}
