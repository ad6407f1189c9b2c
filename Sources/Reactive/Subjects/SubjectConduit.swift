public import Synchronization

/// What a subject's subscriber list holds: a `ConduitBase` (a `Subscription` for a subscriber) or a
/// `FusedSinkBase` (a `sink` on the subject itself), told apart by `ConduitFlags.fused` in `state`. Both keep
/// their flags in the low bits of `state`, so the subject reads `ended`, `pending` and `hasQueue` without
/// knowing which one it holds.
// NB: @unchecked Sendable: the one field is atomic.
@usableFromInline
class SubjectEntry: @unchecked Sendable {
    /// `ConduitFlags` bits in the low bits; above them a conduit's demand or a fused sink's delivering thread.
    @usableFromInline final let state: Atomic<UInt>

    @inlinable
    init(state: UInt) { self.state = Atomic(state) }

    /// Whether the entry has ended (cancelled or completed).
    @inlinable
    final var isEnded: Bool { state.load(ordering: .relaxed) & ConduitFlags.ended != 0 }

    /// Whether the entry is a fused sink that has ended: the subject may drop it from its list.
    @inlinable
    final var isEndedFusedSink: Bool {
        state.load(ordering: .relaxed) & (ConduitFlags.fused | ConduitFlags.ended)
            == ConduitFlags.fused | ConduitFlags.ended
    }

    /// Marks the entry ended; returns whether it already was.
    @inlinable
    final func markEnded() -> Bool {
        state.bitwiseOr(ConduitFlags.ended, ordering: .sequentiallyConsistent).oldValue & ConduitFlags.ended != 0
    }

    /// Cancels (subclass).
    @usableFromInline
    func cancel() {}
}

@usableFromInline
class ConduitBase: SubjectEntry, @unchecked Sendable {
    /// The number of the thread delivering to the subscriber (`currentThreadID()`), 0 when idle. Only the owner
    /// writes its own number, so `owner == me` is true exactly inside this thread's delivery (a nested send).
    @usableFromInline final let owner = Atomic<UInt32>(0)
    /// Index in the owning subject's list; read and written only under the subject's lock.
    @usableFromInline final var slot: Int32 = 0
    /// The subject's core, until cancel (the conduit keeps it alive while subscribed, as in Combine).
    @usableFromInline final var parent: SubjectCoreBase?

    @inlinable
    init(parent: SubjectCoreBase, demand: Subscribers.Demand, flags: UInt) {
        self.parent = parent
        super.init(state: ConduitFlags.bits(of: demand) | flags)
    }

    /// A completed conduit's queue stays with its subject until the conduit goes (a cancel forgets it at once).
    deinit {
        if state.load(ordering: .acquiring) & ConduitFlags.hasQueue != 0, let parent { parent.forgetQueue(of: self) }
    }

    /// The overflow queue, if one was ever needed (and the conduit was not cancelled since).
    final var queue: ConduitQueueBase? {
        guard state.load(ordering: .sequentiallyConsistent) & ConduitFlags.hasQueue != 0, let parent else {
            return nil
        }
        return parent.queue(of: self)
    }

    /// The overflow queue, installing `make()` if there is none yet; nil once the conduit has ended without one.
    final func queue(orInstall make: () -> ConduitQueueBase) -> ConduitQueueBase? {
        parent?.queue(of: self, orInstall: make)
    }

    /// Takes one unit of demand; false when there is none.
    @inlinable
    final func takeDemand() -> Bool {
        var current = state.load(ordering: .relaxed)
        while true {
            if current >= ConduitFlags.unlimited { return true }
            if current < ConduitFlags.demandUnit { return false }
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current - ConduitFlags.demandUnit, ordering: .relaxed
            )
            if exchanged { return true }
            current = original
        }
    }

    /// Adds demand, saturating at unlimited.
    @inlinable
    final func addDemand(_ more: Subscribers.Demand) {
        guard more.rawValue != 0 else { return }
        var current = state.load(ordering: .relaxed)
        while current < ConduitFlags.unlimited {
            let sum = ConduitFlags.bits(of: more + ConduitFlags.demand(in: current))
            let desired = sum | current & ConduitFlags.flagBits
            let (exchanged, original) = state.compareExchange(expected: current, desired: desired, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Adds requested demand; the subject's first demand also asks its waiting upstreams for values.
    @usableFromInline
    final func noteRequest(_ more: Subscribers.Demand) {
        precondition(more > 0, "demand must be greater than zero")
        // NB: as Combine's, a request after the end (a cancel or the completion) adds nothing.
        guard !isEnded else { return }
        addDemand(more)
        guard let parent else { return }
        if !parent.demandSeen.load(ordering: .relaxed) { parent.demandSeen.store(true, ordering: .relaxed) }
        if parent.upstreamsWaiting.load(ordering: .relaxed) { parent.requestWaitingUpstreams() }
    }

    /// Adds requested demand; returns whether a current value is owed (it was missed for lack of demand).
    @usableFromInline
    final func noteRequestOwingCurrentValue(_ more: Subscribers.Demand) -> Bool {
        noteRequest(more)
        let wanted = state.bitwiseAnd(~ConduitFlags.needsCurrentValue, ordering: .acquiringAndReleasing).oldValue
        return more > 0 && wanted & ConduitFlags.needsCurrentValue != 0
    }

    /// Tries to become the deliverer without waiting.
    @inlinable
    final func tryOwn(_ me: UInt32) -> Bool {
        owner.compareExchange(expected: 0, desired: me, ordering: .sequentiallyConsistent).exchanged
    }

    /// Whether this thread is delivering to the subscriber right now (the caller is nested inside it).
    @inlinable
    final func isOwned(by me: UInt32) -> Bool { owner.load(ordering: .relaxed) == me }

    /// Gives delivery ownership back; if events were queued meanwhile (or the conduit ended and still holds
    /// the subscriber), takes it again to deliver them.
    @inlinable
    final func leave() {
        // NB: sequentially consistent store, then load: a thread queueing an event sets `pending` and then
        // tries to own; one of the two sides always sees the other, so no event is stranded.
        owner.store(0, ordering: .sequentiallyConsistent)
        if ConduitFlags.needsDrain(state.load(ordering: .sequentiallyConsistent)) { drainAgain(currentThreadID()) }
    }

    /// Delivers queued events and drops an ended subscriber, for as long as there is work and nobody else owns.
    @usableFromInline
    final func drainAgain(_ me: UInt32) {
        while tryOwn(me) {
            // NB: the generic half is entered only when there is something queued: its first use of the queue's
            // type looks up generic metadata, which would double the cost of every cancel.
            if state.load(ordering: .sequentiallyConsistent) & ConduitFlags.pending != 0 { drainQueued() }
            if isEnded {
                releaseHandlers()
                queue?.clear(for: self)
            }
            owner.store(0, ordering: .sequentiallyConsistent)
            if !ConduitFlags.needsDrain(state.load(ordering: .sequentiallyConsistent)) { return }
        }
    }

    /// Delivers the queued events, in order, while owning (subclass).
    @usableFromInline
    func drainQueued() {}

    /// Drops the subscriber's closures (subclass; only ever called by the owner).
    @usableFromInline
    func releaseHandlers() {}

    /// Cancels: detaches from the subject, drops its queued events and the subscriber. Non-generic, so
    /// cancelling never looks up generic metadata.
    @usableFromInline
    final override func cancel() {
        guard !markEnded() else { return }
        if let parent {
            // Ended first, so nothing is queued after this clear (see `enqueue`).
            if let queue = parent.detach(self) {
                queue.clear(for: self)
                parent.forgetQueue(of: self)
            }
        }
        parent = nil
        // Whoever owns delivery drops the closures when it leaves; if nobody does, become the owner to do it.
        drainAgain(currentThreadID())
    }
}

/// Bits of `SubjectEntry.state`; in a conduit the bits from `demandUnit` up hold the demand, in a fused sink
/// the bits from 32 up its delivering thread (`FusedSinkBase`).
@usableFromInline
enum ConduitFlags {
    @usableFromInline static let ended: UInt = 1
    @usableFromInline static let needsCurrentValue: UInt = 2
    /// The subscriber's closures have been dropped (after the conduit ended).
    @usableFromInline static let released: UInt = 4
    /// A current-value subject's subscriber: a value dropped for lack of demand is replaced by the subject's
    /// value on the next request.
    @usableFromInline static let keepsLatest: UInt = 8
    /// The subject behind a `@Published` property (only its description differs: "PublishedSubject").
    @usableFromInline static let published: UInt = 16
    /// The subject behind an `ObservableObjectPublisher`: described as such, and it signals without demand.
    @usableFromInline static let observableObject: UInt = 32
    /// Events wait in the conduit's overflow queue (set and cleared under the queue's lock).
    @usableFromInline static let pending: UInt = 64
    /// The subject holds an overflow queue for this conduit (set under the subject's lock).
    @usableFromInline static let hasQueue: UInt = 128
    /// The entry is a `FusedSinkBase`: no demand bits, its delivering thread's number from bit 32 up.
    @usableFromInline static let fused: UInt = 256
    /// One unit of demand.
    @usableFromInline static let demandUnit: UInt = 512
    /// The flag bits, below the demand.
    @usableFromInline static let flagBits: UInt = demandUnit - 1
    /// The demand bits of unlimited demand: all of them set.
    @usableFromInline static let unlimited: UInt = ~flagBits

    /// Whether an owner leaving must deliver queued events or drop an ended subscriber.
    @inlinable
    static func needsDrain(_ state: UInt) -> Bool {
        state & pending != 0 || state & (ended | released) == ended
    }

    /// `demand` in the demand bits.
    // NB: 55 bits: a finite demand of 2^55 - 1 or more (36 quadrillion values) counts as unlimited.
    @inlinable
    static func bits(of demand: Subscribers.Demand) -> UInt {
        demand.rawValue >= unlimited / demandUnit ? unlimited : demand.rawValue &* demandUnit
    }

    /// The demand held in `state`.
    @inlinable
    static func demand(in state: UInt) -> Subscribers.Demand {
        state >= unlimited ? .unlimited : Subscribers.Demand(rawValue: state / demandUnit)
    }
}

/// One subscriber's connection to a subject. The downstream is reached through closures made where the
/// subscriber's type is known (in the inlined `receive(subscriber:)` / `sink`), so per-value delivery runs
/// specialized code; a plain `sink` stores the user's closure directly (no `Sink` object at all). This class
/// holds the value closure only: a `sink` whose completion does nothing (`sink(receiveValue:)` on a subject
/// that cannot fail) needs no more; `SubjectCompletionConduit` adds the completion closure.
// NB: the closures live in the conduit itself, not in an object of their own: a subject's sink is then two
// objects (this conduit and its `AnyCancellable`), 96 bytes of heap less than with a closures object.
@usableFromInline
class SubjectConduit<Output, Failure: Error>: ConduitBase, Subscription, CombineDescribed, @unchecked Sendable {
    /// Combine's name: the kind of subject this conduit belongs to.
    @usableFromInline final var combineName: String {
        let flags = state.load(ordering: .relaxed)
        if flags & ConduitFlags.published != 0 { return "PublishedSubject" }
        if flags & ConduitFlags.observableObject != 0 { return "ObservableObjectPublisher" }
        return flags & ConduitFlags.keepsLatest != 0 ? "CurrentValueSubject" : "PassthroughSubject"
    }
    /// What the conduit delivers values to; nil once dropped.
    // NB: set before the conduit is published to the subject's list and cleared only by the thread owning
    // delivery, so a delivery (also the owner) reads it without a lock.
    @exclusivity(unchecked) @usableFromInline final var onValue: ((Output) -> Void)?

    @inlinable
    init(
        parent: SubjectCoreBase, demand: Subscribers.Demand, needsCurrentValue: Bool = false, keepsLatest: Bool = false,
        published: Bool = false, observableObject: Bool = false
    ) {
        super.init(
            parent: parent, demand: demand,
            flags: (needsCurrentValue ? ConduitFlags.needsCurrentValue : 0)
                | (keepsLatest ? ConduitFlags.keepsLatest : 0) | (published ? ConduitFlags.published : 0)
                | (observableObject ? ConduitFlags.observableObject : 0))
    }

    /// Installs what the conduit delivers values to (before the conduit is attached to its subject).
    @inlinable
    final func install(onValue: @escaping (Output) -> Void) {
        self.onValue = onValue
    }

    /// Delivers a value to the subscriber, if it is still held (only while owning delivery).
    @inlinable
    final func callValue(_ value: Output) {
        onValue?(value)
    }

    /// The completion closure, if the subscriber has one and still holds it (only while owning delivery).
    @usableFromInline
    func completionHandler() -> ((Subscribers.Completion<Failure>) -> Void)? { nil }

    /// Delivers a value if the subscriber has demand (else drops it, as Combine's subjects do): at once when
    /// idle or when nested inside this thread's own delivery, queued behind another thread's delivery.
    @inlinable
    final func offer(_ value: Output, from me: UInt32) {
        if tryOwn(me) {
            // NB: events still queued (their deliverer left but has not taken ownership back yet) go first: this
            // value joins them, so a thread's values arrive in the order it sent them.
            if state.load(ordering: .relaxed) & ConduitFlags.pending != 0 {
                enqueue(.value(value), from: me)
                leave()
            } else {
                deliverOwned(value)
            }
        } else if isOwned(by: me) {
            deliverNested(value)
        } else {
            enqueue(.value(value), from: me)
        }
    }

    /// Delivers a value right after `sink` made this thread the owner (current value to a new sink).
    @inlinable
    final func deliverOwned(_ value: Output) {
        deliverNested(value)
        leave()
    }

    /// Delivers a value while this thread owns delivery. Without demand the value is dropped; a current-value
    /// subject's subscriber then gets the subject's value when it next requests (Combine's behaviour).
    @inlinable
    final func deliverNested(_ value: Output) {
        guard !isEnded else { return }
        if takeDemand() {
            callValue(value)
        } else {
            let flags = state.load(ordering: .relaxed)
            if flags & ConduitFlags.keepsLatest != 0 {
                state.bitwiseOr(ConduitFlags.needsCurrentValue, ordering: .relaxed)
            } else if flags & ConduitFlags.observableObject != 0 {
                // NB: Combine's `ObservableObjectPublisher` signals every subscriber whatever its demand.
                callValue(value)
            }
        }
    }

    /// Delivers the completion (nested like a value) and lets go of the subscriber.
    @usableFromInline
    final func finish(_ completion: Subscribers.Completion<Failure>, from me: UInt32) {
        if tryOwn(me) {
            // Behind the events still queued, as a value is (see `offer`).
            if state.load(ordering: .relaxed) & ConduitFlags.pending != 0 {
                enqueue(.completion(completion), from: me)
            } else {
                deliver(completion)
            }
            leave()
        } else if isOwned(by: me) {
            // The outer delivery drops the closures when it leaves (the conduit has ended by then).
            if !markEnded() { completionHandler()?(completion) }
        } else {
            enqueue(.completion(completion), from: me)
        }
    }

    /// Delivers the completion once, while owning, and drops the closures.
    private final func deliver(_ completion: Subscribers.Completion<Failure>) {
        let held = markEnded() ? nil : completionHandler()
        releaseHandlers()
        queue?.clear(for: self)
        held?(completion)
    }

    /// This conduit's overflow queue, created on first use; nil once the conduit has ended without one.
    private final var events: ConduitQueue<Output, Failure>? {
        queue(orInstall: { ConduitQueue<Output, Failure>() }).map {
            unsafeDowncast($0, to: ConduitQueue<Output, Failure>.self)
        }
    }

    @usableFromInline
    final func enqueue(_ event: ConduitEvent<Output, Failure>, from me: UInt32) {
        // NB: an ended conduit delivers nothing more, so its events are dropped here; checked under the queue's
        // lock, because a cancel marks the conduit ended before it clears the queue: an event is either queued
        // before that clear (and dropped by it) or never queued.
        events?.events.withLock { queued in
            guard !isEnded else { return }
            queued.append(event)
            state.bitwiseOr(ConduitFlags.pending, ordering: .sequentiallyConsistent)
        }
        drainAgain(me)
    }

    @usableFromInline
    final override func drainQueued() {
        guard let queue else { return }
        let events = unsafeDowncast(queue, to: ConduitQueue<Output, Failure>.self)
        while let event = events.next(for: self) {
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
        state.bitwiseOr(ConduitFlags.released, ordering: .sequentiallyConsistent)
        onValue = nil
    }

    @usableFromInline
    final func request(_ demand: Subscribers.Demand) {
        // NB: the generic work is in its own function: code here would make every request (reached through
        // `any Subscription`, so unspecialized) look up the generic metadata it needs at entry.
        if noteRequestOwingCurrentValue(demand) { deliverCurrentValue() }
    }

    /// Combine's children: the subject (`parent`, `subject`), the subscriber and the demand; the subject and
    /// the subscriber are nil once the conduit has ended. An `ObservableObjectPublisher`'s shows the subscriber.
    @usableFromInline var customMirror: Mirror {
        let flags = state.load(ordering: .relaxed)
        let source = mirrorSource
        let downstream = source.map(\.downstream)
        if flags & ConduitFlags.observableObject != 0 {
            return Mirror(self, children: [("downstream", downstream as Any)])
        }
        let subject = source?.subject
        let children: [Mirror.Child] = [
            ("parent", subject as Any), ("downstream", downstream as Any),
            ("demand", ConduitFlags.demand(in: flags)), ("subject", subject as Any),
        ]
        return Mirror(self, children: children)
    }

    /// The subscriber and subject the mirror shows (the subclass that holds them).
    var mirrorSource: (any ConduitMirrorSource)? { nil }

    /// Delivers the current-value subject's value owed since a value was dropped for lack of demand.
    @inline(never)
    private final func deliverCurrentValue() {
        guard let current = parent as? any CurrentValueProviding else { return }
        // NB: claim delivery before reading the value, so a racing send queues behind it (at worst delivered
        // twice, never lost or reordered).
        let me = currentThreadID()
        if tryOwn(me) {
            if let value = current.currentValue(as: Output.self), takeDemand(), !isEnded {
                callValue(value)
            }
            leave()
        } else if let value = current.currentValue(as: Output.self) {
            if isOwned(by: me) {
                if !isEnded, takeDemand() { callValue(value) }
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
