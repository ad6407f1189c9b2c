public import Synchronization

/// The non-generic half of a subject's per-subscriber conduit: delivery ownership, demand and the slot in the
/// subject's list. Kept free of generic types so the paths that run unspecialized (request, cancel, detach)
/// never look up generic metadata.
// NB: @unchecked Sendable: every mutable field is atomic, or guarded by the owning subject's lock (`slot`), or
// touched only by the thread that holds delivery ownership (`wip`).
@usableFromInline
class ConduitBase: @unchecked Sendable {
    /// Work in progress: 0 when idle; the thread that moves it 0 → 1 owns delivery, and every event queued
    /// meanwhile adds one, so the owner drains them in order (a send from inside a sink is queued, not nested,
    /// and two threads never call one subscriber at the same time).
    @usableFromInline final let wip = Atomic<Int>(0)
    /// Outstanding demand; `UInt.max` is unlimited.
    @usableFromInline final let demand: Atomic<UInt>
    /// Index in the owning subject's list; read and written only under the subject's lock. (32 bits, so it
    /// shares a word with `flags`: every byte of a conduit counts when a subject has 100k subscribers.)
    @usableFromInline final var slot: Int32 = 0
    /// `ConduitFlags`: ended (set once by cancel or completion), needs the current value.
    @usableFromInline final let flags: Atomic<UInt8>
    /// The subject's core, until cancel (the conduit keeps it alive while subscribed, as in Combine).
    @usableFromInline final var parent: SubjectCoreBase?
    /// Events queued while another thread (or an outer call on this thread) delivers; allocated on first use
    /// and owned (+1) by this slot.
    @usableFromInline final let queueSlot = Atomic<Unmanaged<ConduitQueueBase>?>(nil)

    @inlinable
    init(parent: SubjectCoreBase, demand: Subscribers.Demand, flags: UInt8) {
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
        flags.bitwiseOr(ConduitFlags.ended, ordering: .acquiringAndReleasing).oldValue & ConduitFlags.ended != 0
    }

    deinit {
        queueSlot.load(ordering: .acquiring)?.release()
    }

    /// The overflow queue, if one was ever needed.
    final var queue: ConduitQueueBase? {
        queueSlot.load(ordering: .acquiring)?.takeUnretainedValue()
    }

    /// The overflow queue, installing `make()` if there is none yet.
    final func queue(orInstall make: () -> ConduitQueueBase) -> ConduitQueueBase {
        if let existing = queue { return existing }
        let fresh = Unmanaged.passRetained(make())
        let (installed, current) = queueSlot.compareExchange(
            expected: nil, desired: fresh, ordering: .acquiringAndReleasing)
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

    /// Tries to become the deliverer without waiting.
    @inlinable
    final func tryOwn() -> Bool {
        wip.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
    }

    /// Gives delivery ownership back; if events were queued meanwhile, drains them first.
    @inlinable
    final func leave() {
        if wip.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged { return }
        drain(missed: 1)
    }

    /// Drains queued events while holding ownership (subclass), then releases the `missed` count.
    @usableFromInline
    func drain(missed: Int) {}

    /// Drops the subscriber's closures (subclass; only ever called by the delivery owner).
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
        // Whoever owns delivery drops the closures; if nobody does, become the owner to do it.
        guard wip.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 else { return }
        releaseHandlers()
        leave()
    }
}

/// The type-erased overflow queue, so the conduit's non-generic half can hold and clear it.
// NB: @unchecked Sendable: subclasses keep their events behind a Mutex.
@usableFromInline
class ConduitQueueBase: @unchecked Sendable {
    @usableFromInline init() {}
    /// Drops every queued event.
    func clear() {}
}

/// Bits of `ConduitBase.flags`.
@usableFromInline
enum ConduitFlags {
    @usableFromInline static let ended: UInt8 = 1
    @usableFromInline static let needsCurrentValue: UInt8 = 2
}

/// One subscriber's connection to a subject. The downstream is reached through closures made where the
/// subscriber's type is known (in the inlined `receive(subscriber:)` / `sink`), so per-value delivery runs
/// specialized code; a plain `sink` stores the user's closures directly (no `Sink` object at all).
@usableFromInline
final class SubjectConduit<Output, Failure: Error>: ConduitBase, Subscription, @unchecked Sendable {
    /// Receives a value (a subscriber's handler adds the demand it returns itself).
    @usableFromInline var onValue: ((Output) -> Void)?
    /// Receives the completion.
    @usableFromInline var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?

    @inlinable
    init(parent: SubjectCoreBase, demand: Subscribers.Demand, needsCurrentValue: Bool = false) {
        super.init(parent: parent, demand: demand, flags: needsCurrentValue ? ConduitFlags.needsCurrentValue : 0)
    }

    /// Delivers a value if the subscriber has demand (else drops it, as Combine's subjects do).
    @inlinable
    func offer(_ value: Output) {
        guard tryOwn() else { return enqueue(.value(value)) }
        if !isEnded, takeDemand() { onValue?(value) }
        leave()
    }

    /// Delivers a value right after `attach` made this thread the owner (current value to a new sink).
    @inlinable
    func deliverOwned(_ value: Output) {
        if takeDemand() { onValue?(value) }
        leave()
    }

    /// Delivers the completion (after anything queued) and lets go of the subscriber.
    @usableFromInline
    func finish(_ completion: Subscribers.Completion<Failure>) {
        enqueue(.completion(completion))
    }

    /// This conduit's overflow queue, created on first use.
    private var events: ConduitQueue<Output, Failure> {
        unsafeDowncast(queue(orInstall: { ConduitQueue<Output, Failure>() }), to: ConduitQueue<Output, Failure>.self)
    }

    @usableFromInline
    func enqueue(_ event: ConduitEvent<Output, Failure>) {
        events.events.withLock { $0.append(event) }
        if wip.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 { drain(missed: 1) }
    }

    @usableFromInline
    override func drain(missed: Int) {
        var missed = missed
        while true {
            while queue != nil, let event = events.events.withLock({ $0.popFirst() }) {
                switch event {
                case .value(let value):
                    if !isEnded, takeDemand() { onValue?(value) }
                case .completion(let completion):
                    let handler = markEnded() ? nil : onCompletion
                    releaseHandlers()
                    handler?(completion)
                }
            }
            if isEnded { releaseHandlers() }
            let remaining = wip.wrappingAdd(-missed, ordering: .acquiringAndReleasing).newValue
            if remaining == 0 { return }
            missed = remaining
        }
    }

    @usableFromInline
    override func releaseHandlers() {
        onValue = nil
        onCompletion = nil
        queue?.clear()
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        addDemand(demand)
        let wanted = flags.bitwiseAnd(~ConduitFlags.needsCurrentValue, ordering: .acquiringAndReleasing).oldValue
        guard demand > 0, wanted & ConduitFlags.needsCurrentValue != 0 else { return }
        guard let current = parent as? any CurrentValueProviding else { return }
        // NB: claim delivery before reading the value, so a racing send queues behind it (at worst delivered
        // twice, never lost or reordered).
        if tryOwn() {
            if let value = current.currentValue(as: Output.self), takeDemand(), !isEnded {
                onValue?(value)
            }
            leave()
        } else if let value = current.currentValue(as: Output.self) {
            enqueue(.value(value))
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
    override func clear() { events.withLock { $0.removeAll() } }
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

    mutating func removeAll() {
        events.removeAll()
        head = 0
    }
}
