public import Synchronization

/// The non-generic half of a subject's per-subscriber conduit: delivery ownership, demand and the slot in the
/// subject's list. Kept free of generic types so the paths that run unspecialized (request, cancel, detach)
/// never look up generic metadata.
///
/// Delivery follows Combine's subjects: one thread at a time calls the subscriber, and a send made from inside
/// the subscriber (on the delivering thread) is delivered at once, nested, before the outer send returns. A send
/// from another thread while a delivery runs is queued and delivered by the running thread right after, in
/// order, instead of blocking; so two threads whose sinks send into each other's subjects never deadlock.
// NB: @unchecked Sendable: every mutable field is atomic, or guarded by the owning subject's lock (`slot`), or
// touched only by the thread that owns delivery (the handlers).
@usableFromInline
class ConduitBase: @unchecked Sendable {
    /// The thread delivering to the subscriber (`currentThreadID()`), 0 when idle. Only the owner writes its own
    /// id, so `owner == me` is true exactly inside this thread's delivery (a nested send).
    @usableFromInline final let owner = Atomic<UInt>(0)
    /// Outstanding demand; `UInt.max` is unlimited.
    @usableFromInline final let demand: Atomic<UInt>
    /// Index in the owning subject's list; read and written only under the subject's lock. (32 bits, so it
    /// shares a word with `flags`: every byte of a conduit counts when a subject has 100k subscribers.)
    @usableFromInline final var slot: Int32 = 0
    /// `ConduitFlags` bits, and above them the number of queued events not yet delivered.
    @usableFromInline final let flags: Atomic<UInt32>
    /// The subject's core, until cancel (the conduit keeps it alive while subscribed, as in Combine).
    @usableFromInline final var parent: SubjectCoreBase?
    /// Events sent from other threads during a delivery; allocated on first use and owned (+1) by this slot.
    @usableFromInline final let queueSlot = Atomic<Unmanaged<ConduitQueueBase>?>(nil)

    @inlinable
    init(parent: SubjectCoreBase, demand: Subscribers.Demand, flags: UInt32) {
        self.parent = parent
        self.demand = Atomic(demand.rawValue)
        self.flags = Atomic(flags)
    }

    /// Whether the conduit has ended (cancelled or completed).
    @inlinable
    final var isEnded: Bool { flags.load(ordering: .relaxed) & ConduitFlags.ended != 0 }

    /// Marks the conduit ended; returns whether it already was.
    @inlinable
    final func markEnded() -> Bool {
        flags.bitwiseOr(ConduitFlags.ended, ordering: .sequentiallyConsistent).oldValue & ConduitFlags.ended != 0
    }

    deinit {
        queueSlot.load(ordering: .acquiring)?.release()
    }

    /// The overflow queue, if one was ever needed.
    final var queue: ConduitQueueBase? {
        queueSlot.load(ordering: .sequentiallyConsistent)?.takeUnretainedValue()
    }

    /// The overflow queue, installing `make()` if there is none yet.
    final func queue(orInstall make: () -> ConduitQueueBase) -> ConduitQueueBase {
        if let existing = queue { return existing }
        let fresh = Unmanaged.passRetained(make())
        let (installed, current) = queueSlot.compareExchange(
            expected: nil, desired: fresh, ordering: .sequentiallyConsistent)
        if installed { return fresh.takeUnretainedValue() }
        fresh.release()
        return current!.takeUnretainedValue()
    }

    /// Takes one unit of demand; false when there is none.
    @inlinable
    final func takeDemand() -> Bool {
        var current = demand.load(ordering: .relaxed)
        while true {
            if current == .max { return true }
            if current == 0 { return false }
            let (exchanged, original) = demand.compareExchange(
                expected: current, desired: current - 1, ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
    }

    /// Adds demand, saturating at unlimited.
    @inlinable
    final func addDemand(_ more: Subscribers.Demand) {
        guard more.rawValue != 0 else { return }
        var current = demand.load(ordering: .relaxed)
        while current != .max {
            let sum = (more + Subscribers.Demand(rawValue: current)).rawValue
            let (exchanged, original) = demand.compareExchange(expected: current, desired: sum, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Adds requested demand; the subject's first demand also asks its waiting upstreams for values.
    @usableFromInline
    final func noteRequest(_ more: Subscribers.Demand) {
        precondition(more > 0, "demand must be greater than zero")
        addDemand(more)
        if let parent, parent.upstreamsWaiting.load(ordering: .relaxed) { parent.requestWaitingUpstreams() }
    }

    /// Tries to become the deliverer without waiting.
    @inlinable
    final func tryOwn(_ me: UInt) -> Bool {
        owner.compareExchange(expected: 0, desired: me, ordering: .sequentiallyConsistent).exchanged
    }

    /// Whether this thread is delivering to the subscriber right now (the caller is nested inside it).
    @inlinable
    final func isOwned(by me: UInt) -> Bool { owner.load(ordering: .relaxed) == me }

    /// Gives delivery ownership back; if events were queued meanwhile (or the conduit ended and still holds
    /// the subscriber), takes it again to deliver them.
    @inlinable
    final func leave() {
        // NB: sequentially consistent store, then load: a thread queueing an event bumps the count and then
        // tries to own; one of the two sides always sees the other, so no event is stranded.
        owner.store(0, ordering: .sequentiallyConsistent)
        if ConduitFlags.needsDrain(flags.load(ordering: .sequentiallyConsistent)) { drainAgain(currentThreadID()) }
    }

    /// Delivers queued events and drops an ended subscriber, for as long as there is work and nobody else owns.
    @usableFromInline
    final func drainAgain(_ me: UInt) {
        while tryOwn(me) {
            // NB: the generic half is entered only when there is something queued: its first use of the queue's
            // type looks up generic metadata, which would double the cost of every cancel.
            if flags.load(ordering: .sequentiallyConsistent) >= ConduitFlags.pendingUnit { drainQueued() }
            if isEnded {
                releaseHandlers()
                queue?.clear(for: self)
            }
            owner.store(0, ordering: .sequentiallyConsistent)
            if !ConduitFlags.needsDrain(flags.load(ordering: .sequentiallyConsistent)) { return }
        }
    }

    /// Delivers the queued events, in order, while owning (subclass).
    @usableFromInline
    func drainQueued() {}

    /// Drops the subscriber's closures (subclass; only ever called by the owner).
    @usableFromInline
    func releaseHandlers() {}

    /// Cancels: detaches from the subject and drops the subscriber. Non-generic, so cancelling never looks up
    /// generic metadata.
    @usableFromInline
    final func cancel() {
        guard !markEnded() else { return }
        let parent = self.parent
        self.parent = nil
        parent?.detach(self)
        // Whoever owns delivery drops the closures when it leaves; if nobody does, become the owner to do it.
        drainAgain(currentThreadID())
    }
}

/// The type-erased overflow queue, so the conduit's non-generic half can hold it.
// NB: @unchecked Sendable: subclasses keep their events behind a Mutex.
@usableFromInline
class ConduitQueueBase: @unchecked Sendable {
    @usableFromInline init() {}
    /// Drops every queued event of `conduit` (subclass), taking them off its pending count.
    func clear(for conduit: ConduitBase) {}
}

/// Bits of `ConduitBase.flags`; the bits from `pendingUnit` up count queued events.
@usableFromInline
enum ConduitFlags {
    @usableFromInline static let ended: UInt32 = 1
    @usableFromInline static let needsCurrentValue: UInt32 = 2
    /// The subscriber's closures have been dropped (after the conduit ended).
    @usableFromInline static let released: UInt32 = 4
    /// A current-value subject's subscriber: a value dropped for lack of demand is replaced by the subject's
    /// value on the next request.
    @usableFromInline static let keepsLatest: UInt32 = 8
    @usableFromInline static let pendingUnit: UInt32 = 256

    /// Whether an owner leaving must deliver queued events or drop an ended subscriber.
    @inlinable
    static func needsDrain(_ flags: UInt32) -> Bool {
        flags >= pendingUnit || flags & (ended | released) == ended
    }
}

/// One subscriber's connection to a subject. The downstream is reached through closures made where the
/// subscriber's type is known (in the inlined `receive(subscriber:)` / `sink`), so per-value delivery runs
/// specialized code; a plain `sink` stores the user's closures directly (no `Sink` object at all).
@usableFromInline
final class SubjectConduit<Output, Failure: Error>: ConduitBase, Subscription, CombineDescribed, @unchecked Sendable {
    /// Combine's name: the kind of subject this conduit belongs to.
    @usableFromInline var combineName: String {
        flags.load(ordering: .relaxed) & ConduitFlags.keepsLatest != 0 ? "CurrentValueSubject" : "PassthroughSubject"
    }
    /// Receives a value (a subscriber's handler adds the demand it returns itself).
    @usableFromInline var onValue: ((Output) -> Void)?
    /// Receives the completion.
    @usableFromInline var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?

    @inlinable
    init(
        parent: SubjectCoreBase, demand: Subscribers.Demand, needsCurrentValue: Bool = false, keepsLatest: Bool = false
    ) {
        super.init(
            parent: parent, demand: demand,
            flags: (needsCurrentValue ? ConduitFlags.needsCurrentValue : 0)
                | (keepsLatest ? ConduitFlags.keepsLatest : 0))
    }

    /// Delivers a value if the subscriber has demand (else drops it, as Combine's subjects do): at once when
    /// idle or when nested inside this thread's own delivery, queued behind another thread's delivery.
    @inlinable
    func offer(_ value: Output, from me: UInt) {
        if tryOwn(me) {
            deliverOwned(value)
        } else if isOwned(by: me) {
            deliverNested(value)
        } else {
            enqueue(.value(value), from: me)
        }
    }

    /// Delivers a value right after `sink` made this thread the owner (current value to a new sink).
    @inlinable
    func deliverOwned(_ value: Output) {
        deliverNested(value)
        leave()
    }

    /// Delivers a value while this thread owns delivery. Without demand the value is dropped; a current-value
    /// subject's subscriber then gets the subject's value when it next requests (Combine's behaviour).
    @inlinable
    func deliverNested(_ value: Output) {
        guard !isEnded else { return }
        if takeDemand() {
            onValue?(value)
        } else if flags.load(ordering: .relaxed) & ConduitFlags.keepsLatest != 0 {
            flags.bitwiseOr(ConduitFlags.needsCurrentValue, ordering: .relaxed)
        }
    }

    /// Delivers the completion (nested like a value) and lets go of the subscriber.
    @usableFromInline
    func finish(_ completion: Subscribers.Completion<Failure>, from me: UInt) {
        if tryOwn(me) {
            deliver(completion)
            leave()
        } else if isOwned(by: me) {
            // The outer delivery drops the closures when it leaves (the conduit has ended by then).
            if !markEnded() { onCompletion?(completion) }
        } else {
            enqueue(.completion(completion), from: me)
        }
    }

    /// Delivers the completion once, while owning, and drops the closures.
    private func deliver(_ completion: Subscribers.Completion<Failure>) {
        let handler = markEnded() ? nil : onCompletion
        releaseHandlers()
        queue?.clear(for: self)
        handler?(completion)
    }

    /// This conduit's overflow queue, created on first use.
    private var events: ConduitQueue<Output, Failure> {
        unsafeDowncast(queue(orInstall: { ConduitQueue<Output, Failure>() }), to: ConduitQueue<Output, Failure>.self)
    }

    @usableFromInline
    func enqueue(_ event: ConduitEvent<Output, Failure>, from me: UInt) {
        // The count moves under the queue's lock, so it never falls below the events really waiting.
        events.events.withLock { queued in
            queued.append(event)
            flags.wrappingAdd(ConduitFlags.pendingUnit, ordering: .sequentiallyConsistent)
        }
        drainAgain(me)
    }

    @usableFromInline
    override func drainQueued() {
        guard queue != nil else { return }
        let events = self.events
        while let event = events.events.withLock({ queued in
            queued.popFirst().map { event in
                flags.wrappingSubtract(ConduitFlags.pendingUnit, ordering: .sequentiallyConsistent)
                return event
            }
        }) {
            switch event {
            case .value(let value):
                deliverNested(value)
            case .completion(let completion):
                deliver(completion)
            }
        }
    }

    @usableFromInline
    override func releaseHandlers() {
        flags.bitwiseOr(ConduitFlags.released, ordering: .sequentiallyConsistent)
        onValue = nil
        onCompletion = nil
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        noteRequest(demand)
        let wanted = flags.bitwiseAnd(~ConduitFlags.needsCurrentValue, ordering: .acquiringAndReleasing).oldValue
        guard demand > 0, wanted & ConduitFlags.needsCurrentValue != 0 else { return }
        guard let current = parent as? any CurrentValueProviding else { return }
        // NB: claim delivery before reading the value, so a racing send queues behind it (at worst delivered
        // twice, never lost or reordered).
        let me = currentThreadID()
        if tryOwn(me) {
            if let value = current.currentValue(as: Output.self), takeDemand(), !isEnded {
                onValue?(value)
            }
            leave()
        } else if let value = current.currentValue(as: Output.self) {
            if isOwned(by: me) {
                if !isEnded, takeDemand() { onValue?(value) }
            } else {
                enqueue(.value(value), from: me)
            }
        }
    }

}

/// A subject that can hand a new subscriber its current value.
@usableFromInline
protocol CurrentValueProviding: AnyObject {
    /// The current value, if the subject holds values of type `T`.
    func currentValue<T>(as type: T.Type) -> T?
}

/// An event waiting in a conduit's queue.
@usableFromInline
enum ConduitEvent<Output, Failure: Error> {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
}

/// The overflow queue of a conduit, allocated only when two deliveries meet.
// NB: @unchecked Sendable: the events are Mutex-guarded.
@usableFromInline
final class ConduitQueue<Output, Failure: Error>: ConduitQueueBase, @unchecked Sendable {
    let events = Mutex(EventQueue<Output, Failure>())
    @usableFromInline override init() {}

    override func clear(for conduit: ConduitBase) {
        // The count moves under the lock, as when the events were queued.
        events.withLock { queued in
            let dropped = queued.removeAll()
            if dropped > 0 {
                conduit.flags.wrappingSubtract(
                    ConduitFlags.pendingUnit &* UInt32(truncatingIfNeeded: dropped), ordering: .sequentiallyConsistent)
            }
        }
    }
}

// NB: @unchecked Sendable: it only lives inside its queue's Mutex.
struct EventQueue<Output, Failure: Error>: @unchecked Sendable {
    private var events: [ConduitEvent<Output, Failure>] = []
    private var head = 0

    mutating func append(_ event: ConduitEvent<Output, Failure>) { events.append(event) }

    mutating func popFirst() -> ConduitEvent<Output, Failure>? {
        guard head < events.count else { return nil }
        defer {
            head += 1
            if head == events.count {
                events.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return events[head]
    }

    /// Drops every event; returns how many were waiting.
    mutating func removeAll() -> Int {
        let count = events.count - head
        events.removeAll()
        head = 0
        return count
    }
}
