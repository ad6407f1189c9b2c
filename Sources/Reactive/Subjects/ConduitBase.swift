public import Synchronization

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
