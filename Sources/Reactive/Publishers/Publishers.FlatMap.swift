public import Synchronization

extension Publishers {
    /// A publisher that transforms all elements from an upstream publisher into new publishers, up to a
    /// maximum number at a time, and merges their elements.
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
    where NewPublisher.Failure == Upstream.Failure {
        /// The kind of values published by this publisher.
        public typealias Output = NewPublisher.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum number of concurrent publisher subscriptions.
        public let maxPublishers: Subscribers.Demand
        /// A closure that takes an element as a parameter and returns a publisher that produces elements.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates a publisher that transforms elements into publishers and merges their output.
        public init(
            upstream: Upstream, maxPublishers: Subscribers.Demand,
            transform: @escaping (Upstream.Output) -> NewPublisher
        ) {
            self.upstream = upstream
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        /// Attaches the subscriber through a merging object, which the subscriber gets before the upstream is
        /// subscribed to, as in Combine.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let outer = FlatMapOuter<Upstream.Output, NewPublisher, S>(
                downstream: subscriber, maxPublishers: maxPublishers, transform: transform, announced: true
            )
            subscriber.receive(subscription: outer)
            upstream.subscribe(outer)
        }
    }
}

extension Publisher {
    /// Transforms all elements from an upstream publisher into a new publisher up to a maximum number of
    /// publishers you specify.
    ///
    /// ```swift
    /// ids.flatMap(maxPublishers: .max(2)) { id in fetchPost(id) }
    /// ```
    @inlinable
    public func flatMap<T, P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where T == P.Output, Failure == P.Failure {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publisher where Failure == Never {
    /// Transforms all elements of a never-failing publisher into publishers that may fail.
    ///
    /// ```swift
    /// taps.flatMap { fetch($0) }
    /// ```
    @inlinable
    public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>> {
        Publishers.FlatMap(
            upstream: setFailureType(to: P.Failure.self), maxPublishers: maxPublishers, transform: transform
        )
    }

    /// Transforms all elements of a never-failing publisher into never-failing publishers.
    ///
    /// ```swift
    /// taps.flatMap { Just($0) }
    /// ```
    @inlinable
    public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publisher {
    /// Transforms all elements into never-failing publishers.
    ///
    /// ```swift
    /// fetch.flatMap { Just($0.count) }
    /// ```
    @inlinable
    public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited, _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) {
            transform($0).setFailureType(to: Failure.self)
        }
    }
}

/// Merges the children's elements into one serialized downstream stream. Each child has at most one
/// element in flight: a child's element that finds no downstream demand (or another delivery in progress)
/// is buffered, and the child is asked for its next element once that one is delivered.
// NB: as Combine's (OpenCombine's suite records it): a failure cancels every other child but neither the
// failed child nor the upstream (both are let go); an upstream failure arriving again while the children are
// being cancelled traps, as does a request of zero; once the downstream's demand turns unlimited, every live
// child is asked for everything.
@usableFromInline
final class FlatMapOuter<Input, Child: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == Child.Output, Downstream.Failure == Child.Failure {
    /// Combine's name: "FlatMap", or "Merge" for the merge publishers built on it.
    @usableFromInline let combineName: String
    @usableFromInline typealias Failure = Child.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let maxPublishers: Subscribers.Demand
    @usableFromInline let transform: (Input) -> Child
    @usableFromInline let state = Mutex(FlatMapState<Child.Output, Child.Failure>())
    /// The downstream got this subscription before the upstream was subscribed to (`flatMap`), rather than
    /// when the upstream's subscription comes (the merge publishers).
    @usableFromInline let announced: Bool

    @inlinable
    init(
        downstream: Downstream, maxPublishers: Subscribers.Demand, transform: @escaping (Input) -> Child,
        combineName: String = "FlatMap", announced: Bool = false
    ) {
        self.combineName = combineName
        self.downstream = downstream
        self.maxPublishers = maxPublishers
        self.transform = transform
        self.announced = announced
    }

    @inlinable
    func receive(subscription: any Subscription) {
        let accepted = state.withLock { state -> Bool in
            guard case .awaiting = state.outer else { return false }
            state.outer = .subscribed(subscription)
            return true
        }
        guard accepted else { return subscription.cancel() }
        if announced {
            // NB: Combine passes on even a maximum of zero publishers as a request.
            subscription.request(maxPublishers)
        } else {
            downstream.receive(subscription: self)
            if maxPublishers > 0 { subscription.request(maxPublishers) }
        }
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        // NB: a `Just` child does exactly this: its one value on the first request, then `.finished`. Taking it
        // without a subscription skips two allocations and four lock round trips; the order of values, the
        // buffering without demand and the outer's replenishing are the same as on the general path.
        // (The type test folds away in specialized code.)
        if Child.self == Just<Child.Output>.self {
            receiveJust((transform(input) as! Just<Child.Output>).output)
            return .none
        }
        let id = state.withLock { state -> Int? in
            guard !state.done else { return nil }
            state.nextID += 1
            state.children[state.nextID] = .some(nil)
            return state.nextID
        }
        guard let id else { return .none }
        transform(input).receive(subscriber: FlatMapChild(owner: self, id: id))
        return .none
    }

    /// A `Just` child's value: delivered at once when the downstream has demand and nobody is delivering,
    /// else buffered; the child has finished either way, so a limited outer is asked for one more.
    @inlinable
    func receiveJust(_ value: Child.Output) {
        let deliverNow = state.withLock { state -> Bool? in
            guard !state.done else { return nil }
            if state.delivering || state.demand == .none {
                state.nextID += 1
                state.buffer.append((state.nextID, value))
                return false
            }
            state.demand -= 1
            state.delivering = true
            return true
        }
        guard let deliverNow else { return }
        if deliverNow { drain(more: downstream.receive(value)) }
        if maxPublishers != .unlimited { state.withLock { $0.done ? nil : $0.outer.subscription }?.request(.max(1)) }
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let finish = state.withLock { state -> Bool in
                guard !state.done else { return false }
                state.outer = .terminal
                state.outerFinished = true
                return state.claimFinish()
            }
            if finish { downstream.receive(completion: .finished) }
        case .failure:
            fail(completion, child: nil)
        }
    }

    /// Fails the downstream once, after cancelling every child but `child` (the one that failed, if any); the
    /// upstream is let go uncancelled.
    @inlinable
    func fail(_ completion: Subscribers.Completion<Failure>, child: Int?) {
        let (live, toCancel, deliverNow) = state.withLock { state -> (Bool, [any Subscription], Bool) in
            precondition(
                child != nil || !state.cancellingChildren,
                "flatMap's upstream failed again while its children were being cancelled")
            guard !state.done else { return (false, [], false) }
            state.done = true
            if let child { state.children[child] = nil }
            let toCancel = state.children.values.compactMap { $0 }
            _ = state.outer.terminate()
            state.children = [:]
            state.buffer = []
            state.cancellingChildren = child == nil && !toCancel.isEmpty
            if state.delivering {
                state.pendingCompletion = completion
                return (true, toCancel, false)
            }
            return (true, toCancel, true)
        }
        for subscription in toCancel { subscription.cancel() }
        if child == nil, !toCancel.isEmpty { state.withLock { $0.cancellingChildren = false } }
        guard live, deliverNow else { return }
        // NB: as Combine's, a child's value sent from inside the failure's delivery still goes out (with demand).
        let me = currentThreadID()
        state.withLock { state in
            state.failing = true
            state.deliveringThread = me
        }
        downstream.receive(completion: completion)
        state.withLock { state in
            state.failing = false
            state.deliveringThread = 0
        }
    }

    @inlinable
    func childSubscribed(_ id: Int, _ subscription: any Subscription) {
        // As Combine: a child is asked for everything while the downstream's demand is unlimited, else for one
        // value at a time (so no child runs ahead of the downstream).
        let request = state.withLock { state -> Subscribers.Demand? in
            guard !state.done, state.children[id] != nil else { return nil }
            state.children[id] = subscription
            return state.demand == .unlimited ? .unlimited : .max(1)
        }
        if let request { subscription.request(request) } else { subscription.cancel() }
    }

    /// A child's value: delivered at once when nobody is delivering and there is demand, and also (as Combine's)
    /// from inside this thread's own delivery, of another value or of a child's failure; else buffered.
    @inlinable
    func childValue(_ id: Int, _ value: Child.Output) -> Subscribers.Demand {
        let me = currentThreadID()
        let (step, unlimited) = state.withLock { state -> (FlatMapValueStep, Bool) in
            if state.deliveringThread == me, state.demand > 0, !state.done || state.failing {
                state.demand -= 1
                return (.nested, state.demand == .unlimited)
            }
            guard !state.done else { return (.ignore, false) }
            if state.delivering || state.demand == .none {
                state.buffer.append((id, value))
                return (.ignore, false)
            }
            state.demand -= 1
            state.delivering = true
            state.deliveringThread = me
            return (.deliver, state.demand == .unlimited)
        }
        switch step {
        case .ignore:
            return .none
        case .nested:
            let more = downstream.receive(value)
            if more > 0 { state.withLock { $0.demand += more } }
        case .deliver:
            drain(more: downstream.receive(value))
        }
        return unlimited ? .none : .max(1)
    }

    @inlinable
    func childCompleted(_ id: Int, _ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            // NB: as Combine's, every finish of a child asks a limited upstream for one more, even a repeated one.
            let (finish, replenish) = state.withLock { state -> (Bool, (any Subscription)?) in
                guard !state.done else { return (false, nil) }
                let replenish = maxPublishers == .unlimited ? nil : state.outer.subscription
                guard state.children.removeValue(forKey: id) != nil else { return (false, replenish) }
                return (state.claimFinish(), replenish)
            }
            if finish {
                downstream.receive(completion: .finished)
            } else {
                replenish?.request(.max(1))
            }
        case .failure:
            fail(completion, child: id)
        }
    }

    @inlinable
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let me = currentThreadID()
        let (start, unlimitedNow) = state.withLock { state -> (Bool, [any Subscription]) in
            let wasUnlimited = state.demand == .unlimited
            state.demand += demand
            let unlimitedNow =
                !wasUnlimited && state.demand == .unlimited && !state.done
                ? state.children.values.compactMap { $0 } : []
            guard !state.delivering, !state.buffer.isEmpty else { return (false, unlimitedNow) }
            state.delivering = true
            state.deliveringThread = me
            return (true, unlimitedNow)
        }
        for child in unlimitedNow { child.request(.unlimited) }
        if start { drain(more: .none) }
    }

    @inlinable
    func cancel() {
        let toCancel = state.withLock { state -> [any Subscription] in
            state.done = true
            var toCancel = state.children.values.compactMap { $0 }
            if let outer = state.outer.terminate() { toCancel.append(outer) }
            state.children = [:]
            state.buffer = []
            return toCancel
        }
        for subscription in toCancel { subscription.cancel() }
    }

    /// Runs as the single deliverer: adds returned demand, delivers buffered elements while there is demand,
    /// then hands back the delivery role (sending a completion that arrived meanwhile).
    @inlinable
    func drain(more: Subscribers.Demand) {
        var more = more
        // NB: a child's value sent from inside its `request` is buffered, as Combine's: the delivering thread is
        // set aside for that call (it nests only values sent from inside the downstream's `receive`).
        var setAside: UInt32?
        while true {
            let step = state.withLock { state -> FlatMapStep<Child.Output, Child.Failure> in
                if let setAside { state.deliveringThread = setAside }
                state.demand += more
                if let completion = state.pendingCompletion {
                    state.pendingCompletion = nil
                    state.delivering = false
                    state.deliveringThread = 0
                    return .complete(completion)
                }
                if !state.done, state.demand > 0, !state.buffer.isEmpty {
                    let (id, value) = state.buffer.removeFirst()
                    state.demand -= 1
                    return .deliver(value, state.children[id] ?? nil)
                }
                state.delivering = false
                state.deliveringThread = 0
                return state.claimFinish() ? .complete(.finished) : .idle
            }
            switch step {
            case .idle:
                return
            case .complete(let completion):
                downstream.receive(completion: completion)
                return
            case .deliver(let value, let child):
                more = downstream.receive(value)
                guard let child else { continue }
                setAside = state.withLock { state in
                    defer { state.deliveringThread = 0 }
                    return state.deliveringThread
                }
                child.request(.max(1))
            }
        }
    }
}
