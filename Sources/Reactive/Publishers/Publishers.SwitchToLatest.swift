public import Synchronization

extension Publishers {
    /// A publisher that flattens nested publishers: it republishes the elements of the most recent inner
    /// publisher, cancelling the previous one.
    public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
    where Upstream.Output == P, P.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = P.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = P.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that "flattens" its upstream, republishing the latest inner publisher.
        public init(upstream: Upstream) { self.upstream = upstream }

        /// Attaches the subscriber through an object that tracks the current inner publisher.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let outer = SwitchToLatestOuter<P, S>(downstream: subscriber)
            subscriber.receive(subscription: outer)
            upstream.subscribe(outer)
        }
    }
}

extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Republishes elements sent by the most recently received publisher.
    ///
    /// ```swift
    /// urls.map { url in session.dataTaskPublisher(for: url).map(\.data) }.switchToLatest()
    /// ```
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Failure == Never {
    /// Republishes elements sent by the most recently received publisher (a never-failing upstream).
    ///
    /// ```swift
    /// imageUrlSubject.map { fetch($0) }.switchToLatest()
    /// ```
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>> {
        Publishers.SwitchToLatest(upstream: setFailureType(to: Output.Failure.self))
    }
}

extension Publisher where Output: Publisher, Failure == Never, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher (neither side fails).
    ///
    /// ```swift
    /// selections.map { Just($0) }.switchToLatest()
    /// ```
    @inlinable
    public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
    /// Republishes elements sent by the most recently received publisher (never-failing inner publishers).
    ///
    /// ```swift
    /// failingOuter.map { Just($0) }.switchToLatest()
    /// ```
    @inlinable
    public func switchToLatest()
        -> Publishers.SwitchToLatest<
            Publishers.SetFailureType<Output, Failure>, Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>
        >
    {
        Publishers.SwitchToLatest(upstream: map { $0.setFailureType(to: Failure.self) })
    }
}

/// Subscribes to each new inner publisher (cancelling the previous one) and hands it the downstream's
/// outstanding demand; finishes once the upstream and the current inner publisher have both finished.
// NB: Combine's bookkeeping, as OpenCombine's suite records it: the downstream gets this subscription before the
// upstream is subscribed to; an upstream completion is passed on each time it comes (a finish only while no
// inner is live or awaited); a child's failure cancels the upstream but not the child; after an upstream
// failure the current child is cancelled, yet a value it still sends is delivered; a value beyond the
// demand, a request of zero and a child's completion before its subscription trap.
@usableFromInline
final class SwitchToLatestOuter<P: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == P.Output, Downstream.Failure == P.Failure {
    @usableFromInline var combineName: String { "SwitchToLatest" }
    @usableFromInline typealias Input = P
    @usableFromInline typealias Failure = P.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let state = Mutex(SwitchState())
    /// Copies of `state.currentID`, `state.cancelled` and "the demand is unlimited", written under the lock
    /// and read without it by a value of the current inner once the demand is unlimited (it can only stay so).
    // NB: a value racing a switch is dropped or delivered on either path alike: the check was never atomic
    // with the delivery, which runs outside the lock.
    @usableFromInline let currentGeneration = Atomic<UInt64>(0)
    @usableFromInline let cancelled = Atomic<Bool>(false)
    @usableFromInline let unlimited = Atomic<Bool>(false)

    @inlinable
    init(downstream: Downstream) { self.downstream = downstream }

    @inlinable
    func receive(subscription: any Subscription) {
        guard state.withLock({ $0.outer.accept(subscription) }) else { return subscription.cancel() }
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: P) -> Subscribers.Demand {
        let (id, previous) = state.withLock { state -> (UInt64?, (any Subscription)?) in
            guard !state.cancelled, !state.outerFinished else { return (nil, nil) }
            state.currentID &+= 1
            currentGeneration.store(state.currentID, ordering: .releasing)
            state.awaitingInner = true
            defer { state.inner = nil }
            return (state.currentID, state.inner)
        }
        previous?.cancel()
        if let id { input.subscribe(SwitchToLatestChild(owner: self, id: id)) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        let (deliver, inner) = state.withLock { state -> (Bool, (any Subscription)?) in
            state.outer = .terminal
            state.outerFinished = true
            guard !state.cancelled else { return (false, nil) }
            switch completion {
            case .finished:
                guard !state.awaitingInner, state.inner == nil else { return (false, nil) }
                state.sentCompletion = true
                return (true, nil)
            case .failure:
                state.sentCompletion = true
                defer { state.inner = nil }
                return (true, state.inner)
            }
        }
        inner?.cancel()
        if deliver { downstream.receive(completion: completion) }
    }

    @inlinable
    func childSubscribed(_ id: UInt64, _ subscription: any Subscription) {
        let demand = state.withLock { state -> Subscribers.Demand? in
            guard !state.cancelled, state.currentID == id, state.inner == nil else { return nil }
            state.inner = subscription
            state.awaitingInner = false
            return state.demand
        }
        guard let demand else { return subscription.cancel() }
        if demand > 0 { subscription.request(demand) }
    }

    @inlinable
    func childValue(_ id: UInt64, _ value: P.Output) -> Subscribers.Demand {
        if unlimited.load(ordering: .acquiring) {
            guard !cancelled.load(ordering: .acquiring), currentGeneration.load(ordering: .acquiring) == id else {
                return .none
            }
            return downstream.receive(value)
        }
        let live = state.withLock { state -> Bool in
            guard !state.cancelled, state.currentID == id else { return false }
            precondition(state.demand > 0, "switchToLatest received a value beyond the downstream's demand")
            state.demand -= 1
            return true
        }
        guard live else { return .none }
        let more = downstream.receive(value)
        if more > 0 { state.withLock { $0.demand += more } }
        return more
    }

    @inlinable
    func childCompleted(_ id: UInt64, _ completion: Subscribers.Completion<Failure>) {
        let (deliver, outer) = state.withLock { state -> (Bool, (any Subscription)?) in
            guard !state.cancelled, state.currentID == id else { return (false, nil) }
            precondition(!state.awaitingInner, "switchToLatest's inner publisher completed before its subscription")
            state.inner = nil
            guard !state.sentCompletion else { return (false, nil) }
            switch completion {
            case .finished:
                guard state.outerFinished else { return (false, nil) }
                state.sentCompletion = true
                return (true, nil)
            case .failure:
                state.cancel(cancelled)
                state.sentCompletion = true
                return (true, state.outer.terminate())
            }
        }
        outer?.cancel()
        if deliver { downstream.receive(completion: completion) }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        state.withLock { state -> (any Subscription)? in
            state.demand += demand
            if state.demand == .unlimited { unlimited.store(true, ordering: .releasing) }
            return state.inner
        }?.request(demand)
    }

    @inlinable
    func cancel() {
        let (outer, inner) = state.withLock { state -> ((any Subscription)?, (any Subscription)?) in
            state.cancel(cancelled)
            defer { state.inner = nil }
            return (state.outer.terminate(), state.inner)
        }
        inner?.cancel()
        outer?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
@usableFromInline
struct SwitchState: @unchecked Sendable {
    @usableFromInline var outer = SubscriptionStatus.awaiting
    @usableFromInline var inner: (any Subscription)?
    @usableFromInline var currentID: UInt64 = 0
    @usableFromInline var demand = Subscribers.Demand.none
    /// A child was subscribed to and has not handed over its subscription yet.
    @usableFromInline var awaitingInner = false
    @usableFromInline var outerFinished = false
    @usableFromInline var sentCompletion = false
    @usableFromInline var cancelled = false

    @inlinable
    init() {}

    /// Marks the operator cancelled, and its lock-free copy.
    @inlinable
    mutating func cancel(_ flag: borrowing Atomic<Bool>) {
        cancelled = true
        flag.store(true, ordering: .releasing)
    }
}

/// Subscribes to one inner publisher on behalf of the outer object, tagged with its generation; described as
/// Combine's ("SwitchToLatest", its mirror naming the outer subscription's identifier).
@usableFromInline
struct SwitchToLatestChild<P: Publisher, Downstream: Subscriber>: Subscriber, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == P.Output, Downstream.Failure == P.Failure {
    @usableFromInline typealias Input = P.Output
    @usableFromInline typealias Failure = P.Failure
    @usableFromInline let owner: SwitchToLatestOuter<P, Downstream>
    @usableFromInline let id: UInt64
    @usableFromInline let combineIdentifier: CombineIdentifier

    @inlinable
    init(owner: SwitchToLatestOuter<P, Downstream>, id: UInt64) {
        self.owner = owner
        self.id = id
        combineIdentifier = CombineIdentifier()
    }

    @inlinable
    func receive(subscription: any Subscription) { owner.childSubscribed(id, subscription) }
    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand { owner.childValue(id, input) }
    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) { owner.childCompleted(id, completion) }

    @usableFromInline var description: String { "SwitchToLatest" }
    @usableFromInline var playgroundDescription: Any { description }
    @usableFromInline var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": owner.combineIdentifier])
    }
}
