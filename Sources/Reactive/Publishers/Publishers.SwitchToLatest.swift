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
            upstream.receive(subscriber: SwitchToLatestOuter<P, S>(downstream: subscriber))
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
@usableFromInline
final class SwitchToLatestOuter<P: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == P.Output, Downstream.Failure == P.Failure {
    @usableFromInline var combineName: String { "SwitchToLatest" }
    @usableFromInline typealias Input = P
    @usableFromInline typealias Failure = P.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let state = Mutex(SwitchState())
    /// Copies of `state.currentID`, `state.done` and "the demand is unlimited", written under the lock and
    /// read without it by a value of the current inner once the demand is unlimited (it can only stay so).
    // NB: a value racing a switch is dropped or delivered on either path alike: the check was never atomic
    // with the delivery, which runs outside the lock.
    @usableFromInline let currentGeneration = Atomic<UInt64>(0)
    @usableFromInline let ended = Atomic<Bool>(false)
    @usableFromInline let unlimited = Atomic<Bool>(false)

    @inlinable
    init(downstream: Downstream) { self.downstream = downstream }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard case .awaiting = state.outer else { return false }
            state.outer = .subscribed(subscription)
            return true
        }
        guard accepted else { return subscription.cancel() }
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    @inlinable
    func receive(_ input: P) -> Subscribers.Demand {
        let (id, previous) = state.withLock { state -> (UInt64?, (any Subscription)?) in
            guard !state.done else { return (nil, nil) }
            state.currentID &+= 1
            currentGeneration.store(state.currentID, ordering: .releasing)
            state.innerActive = true
            defer { state.inner = nil }
            return (state.currentID, state.inner)
        }
        previous?.cancel()
        if let id { input.receive(subscriber: SwitchToLatestChild(owner: self, id: id)) }
        return .none
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let finish = state.withLock { state -> Bool in
                guard !state.done else { return false }
                state.outer = .terminal
                state.outerFinished = true
                if state.innerActive { return false }
                state.end(ended)
                return true
            }
            if finish { downstream.receive(completion: .finished) }
        case .failure:
            fail(completion)
        }
    }

    @inlinable
    func fail(_ completion: Subscribers.Completion<Failure>) {
        let (live, outer, inner) = state.withLock { state -> (Bool, (any Subscription)?, (any Subscription)?) in
            guard !state.done else { return (false, nil, nil) }
            state.end(ended)
            defer { state.inner = nil }
            return (true, state.outer.terminate(), state.inner)
        }
        outer?.cancel()
        inner?.cancel()
        if live { downstream.receive(completion: completion) }
    }

    @inlinable
    func childSubscribed(_ id: UInt64, _ subscription: any Subscription) {
        let demand = state.withLock { state -> Subscribers.Demand? in
            guard !state.done, state.currentID == id else { return nil }
            state.inner = subscription
            return state.demand
        }
        guard let demand else { return subscription.cancel() }
        if demand > 0 { subscription.request(demand) }
    }

    @inlinable
    func childValue(_ id: UInt64, _ value: P.Output) -> Subscribers.Demand {
        if unlimited.load(ordering: .acquiring) {
            guard !ended.load(ordering: .acquiring), currentGeneration.load(ordering: .acquiring) == id else {
                return .none
            }
            return downstream.receive(value)
        }
        let live = state.withLock { state -> Bool in
            guard !state.done, state.currentID == id, state.demand > 0 else { return false }
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
        switch completion {
        case .finished:
            let finish = state.withLock { state -> Bool in
                guard !state.done, state.currentID == id else { return false }
                state.inner = nil
                state.innerActive = false
                guard state.outerFinished else { return false }
                state.end(ended)
                return true
            }
            if finish { downstream.receive(completion: .finished) }
        case .failure:
            if state.withLock({ $0.currentID == id }) { fail(completion) }
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        state.withLock { state -> (any Subscription)? in
            state.demand += demand
            if state.demand == .unlimited { unlimited.store(true, ordering: .releasing) }
            return state.inner
        }?.request(demand)
    }

    @inlinable
    func cancel() {
        let (outer, inner) = state.withLock { state -> ((any Subscription)?, (any Subscription)?) in
            state.end(ended)
            defer { state.inner = nil }
            return (state.outer.terminate(), state.inner)
        }
        outer?.cancel()
        inner?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
@usableFromInline
struct SwitchState: @unchecked Sendable {
    @usableFromInline var outer = SubscriptionStatus.awaiting
    @usableFromInline var inner: (any Subscription)?
    @usableFromInline var currentID: UInt64 = 0
    @usableFromInline var demand = Subscribers.Demand.none
    @usableFromInline var innerActive = false
    @usableFromInline var outerFinished = false
    @usableFromInline var done = false

    @inlinable
    init() {}

    /// Marks the operator done, and its lock-free copy.
    @inlinable
    mutating func end(_ ended: borrowing Atomic<Bool>) {
        done = true
        ended.store(true, ordering: .releasing)
    }
}

/// Subscribes to one inner publisher on behalf of the outer object, tagged with its generation.
@usableFromInline
struct SwitchToLatestChild<P: Publisher, Downstream: Subscriber>: Subscriber
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
}
