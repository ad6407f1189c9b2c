public import Synchronization

/// The non-generic half of a subject's core: the subscriber list and its lock, so detaching a cancelled
/// conduit runs without generic metadata lookups.
// NB: @unchecked Sendable: the list is Mutex-guarded.
@usableFromInline
class SubjectCoreBase: @unchecked Sendable {
    @usableFromInline final let lock = Mutex(SubscriberList())
    /// Whether an upstream handed over by `send(subscription:)` still waits for a subscriber's first demand.
    @usableFromInline final let upstreamsWaiting = Atomic<Bool>(false)
    /// Whether `send(subscription:)` was ever called (so a deinit without upstreams takes no lock).
    @usableFromInline final let hasUpstreams = Atomic<Bool>(false)
    /// Whether a subscriber ever asked for values: from then on, as in Combine, an upstream handed over by
    /// `send(subscription:)` is asked for everything at once, even while no subscriber has demand left.
    @usableFromInline final let demandSeen = Atomic<Bool>(false)

    @inlinable init() {}

    /// A subject lets go of its upstreams by cancelling them, as Combine's do.
    deinit {
        guard hasUpstreams.load(ordering: .acquiring) else { return }
        for upstream in lock.withLock({ $0.upstreams }) { upstream.cancel() }
    }

    /// Requests `.unlimited` from the upstreams that were waiting for a subscriber with demand.
    @usableFromInline
    final func requestWaitingUpstreams() {
        guard upstreamsWaiting.load(ordering: .acquiring) else { return }
        let waiting = lock.withLock { list -> [any Subscription] in
            upstreamsWaiting.store(false, ordering: .releasing)
            defer { list.unrequested = [] }
            return list.unrequested
        }
        for upstream in waiting { upstream.request(.unlimited) }
    }

    /// Forgets a cancelled conduit; returns its overflow queue, if it has one, for the cancel to clear.
    @usableFromInline
    final func detach(_ conduit: ConduitBase) -> ConduitQueueBase? {
        lock.withLock { list in
            list.detach(conduit)
            guard conduit.state.load(ordering: .relaxed) & ConduitFlags.hasQueue != 0 else { return nil }
            return list.queues[ObjectIdentifier(conduit)]
        }
    }

    /// The overflow queue of `conduit`, if it has one.
    final func queue(of conduit: SubjectEntry) -> ConduitQueueBase? {
        lock.withLock { $0.queues[ObjectIdentifier(conduit)] }
    }

    /// The overflow queue of `conduit`, installing `make()` if it has none yet; nil if it has ended without one.
    final func queue(of conduit: SubjectEntry, orInstall make: () -> ConduitQueueBase) -> ConduitQueueBase? {
        lock.withLock { list in
            if let existing = list.queues[ObjectIdentifier(conduit)] { return existing }
            // NB: checked under the lock: a cancel marks the conduit ended before it takes the lock to detach,
            // so a queue installed here is one the cancel sees and clears.
            guard !conduit.isEnded else { return nil }
            let fresh = make()
            list.queues[ObjectIdentifier(conduit)] = fresh
            conduit.state.bitwiseOr(ConduitFlags.hasQueue, ordering: .sequentiallyConsistent)
            return fresh
        }
    }

    /// Lets go of the overflow queue of a conduit that is cancelled or gone.
    final func forgetQueue(of conduit: SubjectEntry) {
        _ = lock.withLock { $0.queues.removeValue(forKey: ObjectIdentifier(conduit)) }
    }

    /// Takes the ended fused sinks out of the list (see `SubscriberList`); they and their queues are let go of
    /// here, outside the lock.
    @usableFromInline
    final func sweepEndedSinks() {
        var swept: [AnyObject] = []
        lock.withLock { $0.sweep(into: &swept) }
        swept.removeAll()
    }
}

/// The shared machinery of `PassthroughSubject` and `CurrentValueSubject`: the subscriber list, the terminal
/// completion and (for the current-value subject) the value, all behind one lock. Send takes that lock once
/// to snapshot the list (and store the value), then delivers outside it.
// NB: @unchecked Sendable: `completion` and `value` are only touched inside `lock.withLock`.
@usableFromInline
final class SubjectCore<Output, Failure: Error>: SubjectCoreBase, CurrentValueProviding, @unchecked Sendable {
    /// The terminal completion once sent, and the value (current-value subjects): zero or one element each.
    // NB: arrays, not optionals: freeing a field of type `Output?` in the (unspecialized) deinit looks up the
    // generic metadata of `Optional<Output>` for every subject freed; an array is one reference whatever its
    // element, and the empty one is a shared constant (a passthrough subject allocates none).
    @usableFromInline var completions: ContiguousArray<Subscribers.Completion<Failure>> = []
    @usableFromInline var values: ContiguousArray<Output>

    /// A current-value subject (one made with a `value`) asks an upstream for everything as soon as it gets it,
    /// as Combine's does; a passthrough subject waits for a subscriber's first demand.
    @inlinable
    init(value: Output?) {
        values = value.map { [$0] } ?? []
        super.init()
        if value != nil { demandSeen.store(true, ordering: .relaxed) }
    }

    /// The terminal completion, once sent.
    @inlinable
    var completion: Subscribers.Completion<Failure>? {
        get { completions.first }
        set { completions = newValue.map { [$0] } ?? [] }
    }

    /// The stored value (current-value subjects); replaced in place.
    @inlinable
    var value: Output? {
        get { values.first }
        set {
            guard let newValue else { return values.removeAll() }
            if values.isEmpty { values.append(newValue) } else { values[0] = newValue }
        }
    }

    /// Stores the value (if `store`) and sends it to every subscriber with demand.
    @inlinable
    func send(_ input: Output, store: Bool) {
        let conduits = lock.withLock { list -> ConduitSnapshot? in
            guard !list.completed else { return nil }
            if store { value = input }
            return list.snapshot
        }
        guard let conduits else { return }
        deliver(input, to: conduits)
    }

    /// Offers a value to each subscriber of a snapshot, in order; sweeps the list if the snapshot held more
    /// ended fused sinks than live subscribers.
    // NB: always inlined: as a call of its own, the caller retains and releases the snapshot around it (about
    // 10 ns a send).
    @inlinable @inline(__always)
    func deliver(_ input: Output, to entries: ConduitSnapshot) {
        let me = currentThreadID()
        var ended = 0
        entries.forEach { entry in
            let state = entry.state.load(ordering: .relaxed)
            if state & ConduitFlags.fused == 0 {
                unsafeDowncast(entry, to: SubjectConduit<Output, Failure>.self).offer(input, from: me)
            } else if state & ConduitFlags.ended == 0 {
                unsafeDowncast(entry, to: FusedSink<Output, Failure>.self).offer(input, from: me, core: self)
            } else {
                ended += 1
            }
        }
        if ended > 16, ended * 2 > entries.count { sweepEndedSinks() }
    }

    /// Ends the subject: every subscriber gets the completion, later sends are ignored.
    @usableFromInline
    func send(completion: Subscribers.Completion<Failure>) {
        let conduits = lock.withLock { list -> ConduitSnapshot in
            if !list.completed { self.completion = completion }
            return list.complete()
        }
        let me = currentThreadID()
        conduits.forEach { entry in
            if entry.state.load(ordering: .relaxed) & ConduitFlags.fused == 0 {
                unsafeDowncast(entry, to: SubjectConduit<Output, Failure>.self).finish(completion, from: me)
            } else {
                unsafeDowncast(entry, to: FusedSink<Output, Failure>.self).finish(completion, from: me, core: self)
            }
        }
    }

    /// Keeps an upstream subscription handed over by `send(subscription:)`; requests everything from it once a
    /// subscriber has demand (at once if one has), as Combine's subjects do.
    @usableFromInline
    func send(subscription: any Subscription) {
        let requestNow = lock.withLock { list -> Bool in
            guard !list.completed else { return false }
            list.upstreams.append(subscription)
            hasUpstreams.store(true, ordering: .releasing)
            if demandSeen.load(ordering: .relaxed) || list.anyHasDemand() { return true }
            list.unrequested.append(subscription)
            upstreamsWaiting.store(true, ordering: .releasing)
            return false
        }
        if requestNow { subscription.request(.unlimited) }
    }

    /// Sets the value even after completion (as Combine's `CurrentValueSubject.value` does) and sends it while
    /// the subject is live.
    @inlinable
    func setValue(_ input: Output) {
        let conduits = lock.withLock { list -> ConduitSnapshot? in
            value = input
            return list.completed ? nil : list.snapshot
        }
        guard let conduits else { return }
        deliver(input, to: conduits)
    }

    /// Attaches a subscriber: its closures are made here, where its type is known, so delivery is specialized.
    /// The conduit holds `subject` (the subject object this core belongs to) until it ends, as Combine's do.
    @inlinable
    func receive<S: Subscriber>(
        subscriber: S, subject: AnyObject?, deliversCurrentValue: Bool, published: Bool = false,
        observableObject: Bool = false
    )
    where S.Input == Output, S.Failure == Failure {
        let conduit = SubjectCompletionConduit<Output, Failure>(
            parent: self, demand: .none, needsCurrentValue: deliversCurrentValue, keepsLatest: deliversCurrentValue,
            published: published, observableObject: observableObject
        )
        // NB: both closures capture only `target`, so each uses it as its context: one allocation for the pair.
        // The conduit is reached only when there is demand to add: each use of an unowned reference retains.
        let target = ConduitTarget(subscriber: subscriber, conduit: conduit, subject: subject)
        conduit.install(
            onValue: { value in
                let more = target.subscriber.receive(value)
                if more != .none { target.conduit.addDemand(more) }
            },
            onCompletion: { target.subscriber.receive(completion: $0) },
            target: target)
        var swept: [AnyObject] = []
        let completion = lock.withLock { list -> Subscribers.Completion<Failure>? in
            if list.completed { return self.completion }
            list.append(conduit, sweeping: &swept)
            return nil
        }
        swept.removeAll()
        if let completion {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
        } else {
            subscriber.receive(subscription: conduit)
        }
    }

    /// Attaches closures directly, without a `Sink` object or a conduit: a `FusedSink` (see there) holds them;
    /// a current value (if `deliversCurrentValue`) is delivered before anything sent concurrently. Without
    /// `receiveCompletion` (a sink on a subject that cannot fail, which ignores the finish), the sink carries the
    /// value closure only.
    @inlinable
    func sink(
        deliversCurrentValue: Bool,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let sink: FusedSink<Output, Failure> =
            if let receiveCompletion {
                FusedCompletionSink(onValue: receiveValue, onCompletion: receiveCompletion)
            } else {
                FusedSink(onValue: receiveValue)
            }
        if !demandSeen.load(ordering: .relaxed) { demandSeen.store(true, ordering: .relaxed) }
        requestWaitingUpstreams()
        let me = currentThreadID()
        if deliversCurrentValue { _ = sink.tryOwn(me) }
        var swept: [AnyObject] = []
        let (completion, current) = lock.withLock { list -> (Subscribers.Completion<Failure>?, Output?) in
            if list.completed { return (self.completion, nil) }
            list.append(sink, sweeping: &swept)
            return (nil, deliversCurrentValue ? value : nil)
        }
        swept.removeAll()
        if let completion {
            _ = sink.markEnded()
            receiveCompletion?(completion)
            // Drops the closures (Combine's sink lets go of them once it completes).
            if deliversCurrentValue { sink.leave(self) } else { sink.drainAgain(me, self) }
        } else if deliversCurrentValue {
            if let current { sink.deliverNested(current) }
            sink.leave(self)
        }
        return AnyCancellable(object: sink)
    }

    @usableFromInline
    func currentValue<T>(as type: T.Type) -> T? {
        lock.withLock { _ in value } as? T
    }

    /// The stored value (current-value subjects always have one).
    @inlinable
    var currentValue: Output {
        lock.withLock { _ in value! }
    }
}

/// The subscriber behind a conduit's closures, the conduit they add demand to, and the subject (kept alive by
/// its subscribers until they end, as Combine's conduits keep theirs; the conduit lets go of this object then).
@usableFromInline
final class ConduitTarget<S: Subscriber>: ConduitMirrorSource {
    @usableFromInline let subscriber: S
    /// The conduit owns its closures, which own this object: unowned, so there is no cycle.
    @usableFromInline unowned(unsafe) let conduit: ConduitBase
    @usableFromInline let subject: AnyObject?

    @inlinable
    init(subscriber: S, conduit: ConduitBase, subject: AnyObject?) {
        self.subscriber = subscriber
        self.conduit = conduit
        self.subject = subject
    }

    var downstream: Any { subscriber }
}

/// What a conduit's mirror shows of its subscriber and subject.
protocol ConduitMirrorSource: AnyObject {
    var downstream: Any { get }
    var subject: AnyObject? { get }
}
