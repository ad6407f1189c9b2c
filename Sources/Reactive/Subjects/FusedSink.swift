public import Synchronization

// The delivering thread's number (32 bits) sits above the flags in one `UInt`.
#if !_pointerBitWidth(_64)
    #error("FusedSinkBase packs a 32-bit thread number above its flags: it needs a 64-bit word")
#endif

/// The non-generic half of a `sink` made on a subject itself (`subject.sink { … }`): the subscriber's entry in
/// the subject's list and the object its `AnyCancellable` cancels. It has unlimited demand from the start and
/// is never handed out as a `Subscription`, so it keeps no demand, no slot and no reference to its subject:
/// one word, `state`, with the flags in the low bits and the number of the thread delivering to it
/// (`currentThreadID()`, 0 when idle) from bit 32 up. With the value closure that is 40 bytes, a 48-byte glibc
/// chunk where a conduit takes 64.
///
/// Delivery follows the conduits' rules (see `ConduitBase`): one thread at a time calls the closure, a send
/// nested in this thread's own delivery is delivered at once, and a send from another thread meanwhile is
/// queued (in the subject's overflow queues, keyed by this object) and delivered by the running thread after.
/// The paths that deliver come from the subject and pass its core; `cancel()` comes from the token and has
/// none.
///
/// Without a reference to its subject, a cancel does not take the sink out of the subject's list: it marks the
/// sink ended and drops the closures (as Combine's sink does, at once unless a delivery runs, else when that
/// delivery leaves). The subject drops its ended fused sinks when its list grows past twice what was live at
/// the last sweep and when a send passes more ended ones than live ones; until then an ended one costs its 48
/// bytes and a list slot, and is skipped by every send.
// NB: @unchecked Sendable: `state` is atomic; the closures (subclass) are set before the sink is published to
// the subject's list and cleared only by the thread owning delivery.
@usableFromInline
class FusedSinkBase: SubjectEntry, Cancellable, @unchecked Sendable {
    /// Where the delivering thread's number starts in `state`.
    @usableFromInline static let ownerShift: UInt = 32
    /// The bits of `state` below the owner: the flags.
    @usableFromInline static let flagMask: UInt = 0xFFFF_FFFF

    @inlinable
    init() { super.init(state: ConduitFlags.fused) }

    /// Tries to become the deliverer without waiting.
    // NB: a loop, because the flags share the word: a cancel or a queued event changing them makes the
    // exchange fail while nobody owns.
    @inlinable
    final func tryOwn(_ me: UInt32) -> Bool {
        var current = state.load(ordering: .relaxed)
        while current >> Self.ownerShift == 0 {
            let (exchanged, original) = state.compareExchange(
                expected: current, desired: current | UInt(me) << Self.ownerShift, ordering: .sequentiallyConsistent)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Whether this thread is delivering to the sink right now (the caller is nested inside it).
    @inlinable
    final func isOwned(by me: UInt32) -> Bool { state.load(ordering: .relaxed) >> Self.ownerShift == UInt(me) }

    /// Whether an owner leaving with `state` must deliver queued events or drop an ended sink's closures.
    /// Events queued for an ended sink are never delivered: they wait only to be dropped.
    @inlinable
    static func needsDrain(_ state: UInt) -> Bool {
        state & ConduitFlags.ended == 0
            ? state & ConduitFlags.pending != 0 : state & ConduitFlags.released == 0
    }

    /// Gives delivery ownership back; if events were queued meanwhile (or the sink ended and still holds its
    /// closures), takes it again to deal with them.
    // NB: one read-modify-write of the word that a queueing thread sets `pending` in before it tries to own: the
    // two are ordered, so either this sees `pending` or that thread's try succeeds. No event is stranded. A
    // subtraction of the owner bits (only the owner changes them), so x86 does it in one instruction where an
    // `and` whose result is used is a compare-and-swap loop.
    @inlinable
    final func leave(_ core: SubjectCoreBase?) {
        let owner = state.load(ordering: .relaxed) & ~Self.flagMask
        let after = state.wrappingSubtract(owner, ordering: .sequentiallyConsistent).newValue
        if Self.needsDrain(after) { drainAgain(currentThreadID(), core) }
    }

    /// Delivers queued events and drops an ended sink's closures (and, given the core, its queued events), for
    /// as long as there is work and nobody else owns. Without the core (a cancel) queued events stay with the
    /// subject until a sender or the subject's sweep drops them; the sink has ended, so they are never delivered.
    @usableFromInline
    final func drainAgain(_ me: UInt32, _ core: SubjectCoreBase?) {
        while tryOwn(me) {
            let queued = state.load(ordering: .sequentiallyConsistent) & (ConduitFlags.ended | ConduitFlags.pending)
            if let core, queued == ConduitFlags.pending { drainQueued(core) }
            let current = state.load(ordering: .sequentiallyConsistent)
            if current & ConduitFlags.ended != 0 {
                if current & ConduitFlags.released == 0 { releaseHandlers() }
                if current & ConduitFlags.pending != 0, let core { dropQueue(core) }
            }
            let after = state.bitwiseAnd(Self.flagMask, ordering: .sequentiallyConsistent).newValue
            // NB: without the core (a cancel, which ended the sink first, so the closures are gone by now) queued
            // events cannot be dropped here: one pass, or this would spin on the `pending` it cannot clear.
            if core == nil || !Self.needsDrain(after) { return }
        }
    }

    /// Drops the events queued for this ended sink and the subject's queue for it.
    final func dropQueue(_ core: SubjectCoreBase) {
        core.queue(of: self)?.clear(for: self)
        core.forgetQueue(of: self)
    }

    /// Delivers the queued events, in order, while owning (subclass).
    @usableFromInline
    func drainQueued(_ core: SubjectCoreBase) {}

    /// Drops the closures (subclass; only ever called by the owner).
    @usableFromInline
    func releaseHandlers() {}

    /// Cancels: marks the sink ended and drops its closures (now if no delivery runs, else when it leaves). The
    /// subject drops the sink itself later (see the type's notes). Non-generic, so cancelling never looks up
    /// generic metadata.
    @usableFromInline
    final override func cancel() {
        guard !markEnded() else { return }
        drainAgain(currentThreadID(), nil)
    }
}

/// A `sink` on a subject: the value closure (the completion one in `FusedCompletionSink`).
// NB: @unchecked Sendable: see `FusedSinkBase`.
@usableFromInline
class FusedSink<Output, Failure: Error>: FusedSinkBase, @unchecked Sendable {
    /// What the sink delivers values to; nil once dropped.
    // NB: set before the sink is published to the subject's list and cleared only by the thread owning
    // delivery, so a delivery (also the owner) reads it without a lock.
    @exclusivity(unchecked) @usableFromInline final var onValue: ((Output) -> Void)?

    @inlinable
    init(onValue: @escaping (Output) -> Void) {
        self.onValue = onValue
        super.init()
    }

    /// The completion closure, if the sink has one and still holds it (only while owning delivery).
    @usableFromInline
    func completionHandler() -> ((Subscribers.Completion<Failure>) -> Void)? { nil }

    /// Delivers a value: at once when idle or nested in this thread's own delivery, queued behind another
    /// thread's delivery.
    @inlinable
    final func offer(_ value: Output, from me: UInt32, core: SubjectCoreBase) {
        if tryOwn(me) {
            // NB: events still queued (their deliverer left but has not taken ownership back yet) go first: this
            // value joins them, so a thread's values arrive in the order it sent them.
            if state.load(ordering: .relaxed) & ConduitFlags.pending != 0 {
                enqueue(.value(value), from: me, core: core)
            } else {
                deliverNested(value)
            }
            leave(core)
        } else if isOwned(by: me) {
            deliverNested(value)
        } else {
            enqueue(.value(value), from: me, core: core)
        }
    }

    /// Delivers a value while this thread owns delivery, unless the sink has ended.
    @inlinable
    final func deliverNested(_ value: Output) {
        guard !isEnded else { return }
        onValue?(value)
    }

    /// Delivers the completion (nested like a value) and lets go of the closures.
    @usableFromInline
    final func finish(_ completion: Subscribers.Completion<Failure>, from me: UInt32, core: SubjectCoreBase) {
        if tryOwn(me) {
            // Behind the events still queued, as a value is (see `offer`).
            if state.load(ordering: .relaxed) & ConduitFlags.pending != 0 {
                enqueue(.completion(completion), from: me, core: core)
            } else {
                deliver(completion, core: core)
            }
            leave(core)
        } else if isOwned(by: me) {
            // The outer delivery drops the closures when it leaves (the sink has ended by then).
            if !markEnded() { completionHandler()?(completion) }
        } else {
            enqueue(.completion(completion), from: me, core: core)
        }
    }

    /// Delivers the completion once, while owning, and drops the closures and any queued events.
    private final func deliver(_ completion: Subscribers.Completion<Failure>, core: SubjectCoreBase) {
        let held = markEnded() ? nil : completionHandler()
        releaseHandlers()
        if state.load(ordering: .sequentiallyConsistent) & ConduitFlags.hasQueue != 0 { dropQueue(core) }
        held?(completion)
    }

    @usableFromInline
    final func enqueue(_ event: ConduitEvent<Output, Failure>, from me: UInt32, core: SubjectCoreBase) {
        // NB: an ended sink delivers nothing more, so its events are dropped here; checked under the queue's lock,
        // and a sink that ends after is never delivered what it queued (`deliverNested`, `drainAgain`).
        let queue = core.queue(of: self, orInstall: { ConduitQueue<Output, Failure>() })
        queue.map { unsafeDowncast($0, to: ConduitQueue<Output, Failure>.self) }?.events.withLock { queued in
            guard !isEnded else { return }
            queued.append(event)
            state.bitwiseOr(ConduitFlags.pending, ordering: .sequentiallyConsistent)
        }
        drainAgain(me, core)
    }

    @usableFromInline
    final override func drainQueued(_ core: SubjectCoreBase) {
        guard let queue = core.queue(of: self) else { return }
        let events = unsafeDowncast(queue, to: ConduitQueue<Output, Failure>.self)
        while let event = events.next(for: self) {
            switch event {
            case .value(let value):
                deliverNested(value)
            case .completion(let completion):
                deliver(completion, core: core)
            }
        }
    }

    @usableFromInline
    override func releaseHandlers() {
        state.bitwiseOr(ConduitFlags.released, ordering: .sequentiallyConsistent)
        onValue = nil
    }
}

/// A `sink` on a subject given a `receiveCompletion` closure.
// NB: a subclass, so the value-only sinks do not carry a closure they never call.
@usableFromInline
final class FusedCompletionSink<Output, Failure: Error>: FusedSink<Output, Failure>, @unchecked Sendable {
    /// What the sink delivers the completion to; nil once dropped (cleared only by the delivery owner).
    @exclusivity(unchecked) @usableFromInline var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?

    @inlinable
    init(onValue: @escaping (Output) -> Void, onCompletion: @escaping (Subscribers.Completion<Failure>) -> Void) {
        self.onCompletion = onCompletion
        super.init(onValue: onValue)
    }

    @usableFromInline
    override func completionHandler() -> ((Subscribers.Completion<Failure>) -> Void)? { onCompletion }

    @usableFromInline
    override func releaseHandlers() {
        super.releaseHandlers()
        onCompletion = nil
    }
}
