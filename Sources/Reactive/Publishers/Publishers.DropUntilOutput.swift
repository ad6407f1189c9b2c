import Synchronization

extension Publishers {
    /// A publisher that ignores elements from the upstream until another publisher emits an element.
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
    where Upstream.Failure == Other.Failure {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The publisher whose first element opens the gate.
        public let other: Other

        /// Creates the publisher.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches the subscriber; elements pass once the other publisher has emitted. As in Combine, the
        /// downstream gets its subscription first, then the other publisher is subscribed to, then the upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = DropUntilOutputInner<Upstream.Output, Failure, S>(downstream: subscriber)
            subscriber.receive(subscription: inner)
            other.subscribe(DropUntilOutputTrigger<Other.Output, S>(inner: inner))
            upstream.subscribe(inner)
        }
    }
}

extension Publisher {
    /// Ignores elements from the upstream until another publisher emits an element.
    ///
    /// ```swift
    /// events.drop(untilOutputFrom: ready)
    /// ```
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
    where Failure == P.Failure {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}

/// The subscriber of `drop(untilOutputFrom:)` ("DropUntilOutput"), as Combine's: it counts the downstream's
/// demand (a value beyond it is a programming error and traps, even a dropped one), drops values until the
/// other publisher's first value, and passes them on after it. The other publisher is let go after that value
/// (a later subscription from it is taken again); its completion before that value cancels the upstream and is
/// passed on (each time, as Combine does). Requests before the upstream's subscription are added up and asked
/// for when it comes. A cancel reaches the upstream first, then the other publisher.
// NB: @unchecked Sendable: all state is Mutex-guarded; the downstream and the subscriptions are called outside.
final class DropUntilOutputInner<Input, Failure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == Failure {
    private let downstream: Downstream
    private let state = Mutex(DropUntilOutputState())
    var combineName: String { "DropUntilOutput" }

    init(downstream: Downstream) { self.downstream = downstream }

    func receive(subscription: any Subscription) {
        let pending = state.withLock { state -> Subscribers.Demand? in
            guard !state.base.ended, state.base.upstream.accept(subscription) else { return nil }
            defer { state.pending = .none }
            return state.pending
        }
        guard let pending else { return subscription.cancel() }
        if pending > 0 { subscription.request(pending) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let open = state.withLock { state -> Bool? in
            guard !state.base.ended else { return nil }
            precondition(state.demand > 0, "a value beyond the demand")
            guard state.triggered else { return false }
            state.demand -= 1
            return true
        }
        guard open == true else { return .none }
        let more = downstream.receive(input)
        if more > 0 { state.withLock { $0.demand += more } }
        return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (live, other) = state.withLock { state -> (Bool, (any Subscription)?) in
            guard !state.base.ended else { return (false, nil) }
            return (true, state.triggered ? nil : state.base.other.terminate())
        }
        guard live else { return }
        other?.cancel()
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let upstream = state.withLock { state -> (any Subscription)? in
            guard !state.base.ended else { return nil }
            state.demand += demand
            guard let upstream = state.base.upstream.subscription else {
                state.pending += demand
                return nil
            }
            return upstream
        }
        upstream?.request(demand)
    }

    func cancel() {
        let (upstream, other) = state.withLock { state -> ((any Subscription)?, (any Subscription)?) in
            guard !state.base.ended else { return (nil, nil) }
            state.base.ended = true
            return (state.base.upstream.terminate(), state.base.other.terminate())
        }
        upstream?.cancel()
        other?.cancel()
    }

    fileprivate func otherSubscribed(_ subscription: any Subscription) {
        let accepted = state.withLock { $0.base.ended ? false : $0.base.other.accept(subscription) }
        if accepted { subscription.request(.max(1)) } else { subscription.cancel() }
    }

    fileprivate func otherValue() {
        state.withLock { state in
            guard !state.base.ended, state.base.other.subscription != nil else { return }
            state.triggered = true
            state.base.other = .awaiting
        }
    }

    fileprivate func otherCompleted(_ completion: Subscribers.Completion<Failure>) {
        let (live, upstream) = state.withLock { state -> (Bool, (any Subscription)?) in
            guard !state.base.ended, !state.triggered else { return (false, nil) }
            guard !state.upstreamCancelled, let upstream = state.base.upstream.subscription else { return (true, nil) }
            state.upstreamCancelled = true
            return (true, upstream)
        }
        guard live else { return }
        upstream?.cancel()
        downstream.receive(completion: completion)
    }
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct DropUntilOutputState: @unchecked Sendable {
    var base = UntilOutputState()
    /// The other publisher has sent its value: values pass from now on.
    var triggered = false
    /// What the downstream has asked for and not yet received.
    var demand = Subscribers.Demand.none
    /// Requests made before the upstream's subscription came.
    var pending = Subscribers.Demand.none
    /// The other publisher's completion has cancelled the upstream (values still pass, as in Combine).
    var upstreamCancelled = false
}

/// The subscriber `drop(untilOutputFrom:)` gives the other publisher ("DropUntilOutput", with the identity of the
/// operator's subscriber, as in Combine).
private struct DropUntilOutputTrigger<Input, Downstream: Subscriber>: Subscriber, CombineDescribed {
    typealias Failure = Downstream.Failure
    let inner: DropUntilOutputInner<Downstream.Input, Downstream.Failure, Downstream>
    var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
    var combineName: String { "DropUntilOutput" }

    func receive(subscription: any Subscription) { inner.otherSubscribed(subscription) }

    func receive(_ input: Input) -> Subscribers.Demand {
        inner.otherValue()
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) { inner.otherCompleted(completion) }
}
