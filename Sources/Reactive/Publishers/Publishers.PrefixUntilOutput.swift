import Synchronization

extension Publishers {
    /// A publisher that republishes elements until another publisher emits an element, then finishes.
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The publisher whose first element ends this one.
        public let other: Other

        /// Creates the publisher.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches the subscriber; the other publisher is watched for its first element from the start.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = PrefixUntilOutputInner<Upstream.Output, Failure, S>(downstream: subscriber)
            // The downstream has its subscription before the other publisher can end it.
            upstream.subscribe(inner)
            other.subscribe(PrefixUntilOutputTrigger<Other.Output, Other.Failure, S>(inner: inner))
        }
    }
}

extension Publisher {
    /// Republishes elements until another publisher emits an element; then finishes.
    ///
    /// ```swift
    /// ticks.prefix(untilOutputFrom: stop)
    /// ```
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }

}

/// The subscriber of `prefix(untilOutputFrom:)`, as Combine's: it relays the upstream until the other publisher's
/// first value, which cancels the upstream and finishes the downstream (even before the upstream's subscription
/// came); the other publisher is then let go, not cancelled. A completion of the other ends only the watching.
/// An upstream completion cancels the other first; one before the upstream's subscription reaches nobody. Like
/// Combine's, it has no description or mirror of its own (the downstream sees its type's name).
// NB: @unchecked Sendable: all state is Mutex-guarded; the downstream and the subscriptions are called outside.
final class PrefixUntilOutputInner<Input, Failure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == Failure {
    private let downstream: Downstream
    private let state = Mutex(UntilOutputState())

    init(downstream: Downstream) { self.downstream = downstream }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { $0.ended ? false : $0.upstream.accept(subscription) }
        guard accepted else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let live = state.withLock { !$0.ended && $0.upstream.subscription != nil }
        return live ? downstream.receive(input) : .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (other, live) = state.withLock { state -> ((any Subscription)?, Bool) in
            let live = !state.ended && state.upstream.subscription != nil
            state.ended = true
            state.upstream = .terminal
            return (state.other.terminate(), live)
        }
        other?.cancel()
        if live { downstream.receive(completion: completion) }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.ended ? nil : $0.upstream.subscription }?.request(demand)
    }

    /// Cancels the upstream first, then the other publisher.
    func cancel() {
        let (upstream, other) = state.withLock { state -> ((any Subscription)?, (any Subscription)?) in
            guard !state.ended else { return (nil, nil) }
            state.ended = true
            return (state.upstream.terminate(), state.other.terminate())
        }
        upstream?.cancel()
        other?.cancel()
    }

    fileprivate func otherSubscribed(_ subscription: any Subscription) {
        let accepted = state.withLock { $0.ended ? false : $0.other.accept(subscription) }
        if accepted { subscription.request(.max(1)) } else { subscription.cancel() }
    }

    fileprivate func otherValue() {
        let (live, upstream) = state.withLock { state -> (Bool, (any Subscription)?) in
            guard !state.ended, state.other.subscription != nil else { return (false, nil) }
            state.ended = true
            state.other = .terminal
            return (true, state.upstream.terminate())
        }
        guard live else { return }
        upstream?.cancel()
        downstream.receive(completion: .finished)
    }

    fileprivate func otherCompleted() {
        state.withLock { state in
            if state.other.subscription != nil { state.other = .terminal }
        }
    }
}

/// Where an until-output operator stands with its upstream and the other publisher.
// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
struct UntilOutputState: @unchecked Sendable {
    var upstream = SubscriptionStatus.awaiting
    var other = SubscriptionStatus.awaiting
    /// The downstream has been finished or has cancelled.
    var ended = false
}

/// The subscriber `prefix(untilOutputFrom:)` gives the other publisher: it tells the operator's subscriber, and
/// carries its identity (as in Combine, both subscribers have the same `combineIdentifier`).
private struct PrefixUntilOutputTrigger<Input, Failure: Error, Downstream: Subscriber>: Subscriber {
    let inner: PrefixUntilOutputInner<Downstream.Input, Downstream.Failure, Downstream>
    var combineIdentifier: CombineIdentifier { inner.combineIdentifier }

    func receive(subscription: any Subscription) { inner.otherSubscribed(subscription) }

    func receive(_ input: Input) -> Subscribers.Demand {
        inner.otherValue()
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) { inner.otherCompleted() }
}
