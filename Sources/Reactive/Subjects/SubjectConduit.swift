public import Synchronization

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
