import Synchronization

/// A subject's subscribers in subscription order: slot 0 in `first`, the others in `rest`. A cancelled conduit
/// leaves a hole (nil) until the next compaction, so removal is O(1) amortized and delivery order stays
/// stable. A fused sink (`FusedSinkBase`) cannot detach itself (it has no reference to its subject): an ended
/// one stays until a sweep (`append` when the list has doubled since the last one, or a send that passed more
/// ended ones than live ones). Non-generic, so the cancel path runs without generic metadata lookups.
// NB: the first subscriber is kept out of the array: a subject with one subscriber (most of them; a
// `switchToLatest` inner, a view model's property) allocates no array for it.
// NB: @unchecked Sendable: it only lives inside its subject's Mutex.
@usableFromInline
struct SubscriberList: @unchecked Sendable {
    @usableFromInline var first: SubjectEntry?
    @usableFromInline var rest: ContiguousArray<SubjectEntry?> = []
    @usableFromInline var completed = false
    @usableFromInline var upstreams: [any Subscription] = []
    /// Upstreams not yet asked for values: no subscriber had demand when they arrived.
    @usableFromInline var unrequested: [any Subscription] = []
    /// The overflow queues of conduits whose deliveries met (rare: kept here so a conduit spends no field on it).
    @usableFromInline var queues: [ObjectIdentifier: ConduitQueueBase] = [:]
    private var holes = 0
    /// The length of `rest` at which `append` next sweeps out ended fused sinks: twice what was live at the
    /// last sweep (at least 32), so sweeping costs O(1) per append, amortized.
    private var sweepAt = 32

    @inlinable init() {}

    /// The subscribers, to deliver to outside the lock (no reference to the array when it is empty, so a
    /// send to one subscriber retains only that one).
    @inlinable
    var snapshot: ConduitSnapshot { ConduitSnapshot(first: first, rest: rest.isEmpty ? nil : rest) }

    /// Appends a subscriber (recording a conduit's slot); ended fused sinks swept out on the way are added to
    /// `swept`, for the caller to let go of outside the lock.
    @usableFromInline
    mutating func append(_ entry: SubjectEntry, sweeping swept: inout [AnyObject]) {
        if let first, rest.isEmpty, first.isEndedFusedSink {
            swept.append(first)
            swept += dropQueue(of: first)
            self.first = nil
        } else if rest.count + 1 >= sweepAt {
            sweep(into: &swept)
        }
        place(entry)
    }

    /// Puts an entry at the end of the list.
    private mutating func place(_ entry: SubjectEntry) {
        if first == nil, rest.isEmpty {
            Self.setSlot(of: entry, to: 0)
            first = entry
        } else {
            Self.setSlot(of: entry, to: rest.count + 1)
            rest.append(entry)
        }
    }

    /// Records a conduit's slot (a fused sink has none).
    private static func setSlot(of entry: SubjectEntry, to slot: Int) {
        guard entry.state.load(ordering: .relaxed) & ConduitFlags.fused == 0 else { return }
        unsafeDowncast(entry, to: ConduitBase.self).slot = Int32(truncatingIfNeeded: slot)
    }

    /// Whether a subscriber has outstanding demand (a live fused sink always has: unlimited).
    @usableFromInline
    func anyHasDemand() -> Bool {
        func hasDemand(_ entry: SubjectEntry?) -> Bool {
            guard let state = entry?.state.load(ordering: .relaxed) else { return false }
            if state & ConduitFlags.fused != 0 { return state & ConduitFlags.ended == 0 }
            return state >= ConduitFlags.demandUnit
        }
        return hasDemand(first) || rest.contains(where: hasDemand)
    }

    /// Takes the ended fused sinks out of the list (and their overflow queues out of `queues`), adding them to
    /// `swept` for the caller to let go of outside the lock.
    @usableFromInline
    mutating func sweep(into swept: inout [AnyObject]) {
        compact(sweepingInto: &swept)
        sweepAt = max(32, 2 * (rest.count + 1))
    }

    /// Removes the overflow queue of an entry leaving the list, if it has one (to let go of outside the lock).
    private mutating func dropQueue(of entry: SubjectEntry) -> [AnyObject] {
        guard entry.state.load(ordering: .relaxed) & ConduitFlags.hasQueue != 0,
            let queue = queues.removeValue(forKey: ObjectIdentifier(entry))
        else { return [] }
        return [queue]
    }

    /// Marks the subject complete and returns the conduits to finish.
    @usableFromInline
    mutating func complete() -> ConduitSnapshot {
        guard !completed else { return ConduitSnapshot(first: nil, rest: nil) }
        completed = true
        upstreams = []
        unrequested = []
        holes = 0
        defer {
            first = nil
            rest = []
        }
        return snapshot
    }

    /// Forgets a conduit: its slot becomes a hole, trailing holes are trimmed, and the list is compacted once
    /// more than half of it is holes (an ended fused sink counts as live here until a sweep).
    @usableFromInline
    mutating func detach(_ conduit: ConduitBase) {
        let slot = Int(conduit.slot)
        if slot == 0 {
            guard first === conduit else { return }
            first = nil
        } else {
            guard slot <= rest.count, rest[slot - 1] === conduit else { return }
            rest[slot - 1] = nil
            while let last = rest.last, last == nil {
                rest.removeLast()
                holes -= 1
            }
        }
        holes += 1
        if first == nil, rest.isEmpty {
            holes = 0
        } else if holes > 16, holes * 2 > rest.count + 1 {
            compact()
        }
    }

    /// Closes the holes.
    private mutating func compact() {
        var unused: [AnyObject]? = nil
        compact(keeping: { _ in true }, sweptInto: &unused)
    }

    /// Closes the holes and takes out the ended fused sinks, adding them and their queues to `swept`.
    private mutating func compact(sweepingInto swept: inout [AnyObject]) {
        var taken: [AnyObject]? = []
        // NB: each entry is judged once: one that ends meanwhile stays (for the next sweep), never dropped
        // without its queue.
        compact(keeping: { !$0.isEndedFusedSink }, sweptInto: &taken)
        swept += taken ?? []
    }

    /// Rebuilds the list from the entries `keep` accepts, in order; the others (with their queues) go to
    /// `swept`, if given.
    private mutating func compact(keeping keep: (SubjectEntry) -> Bool, sweptInto swept: inout [AnyObject]?) {
        var live: ContiguousArray<SubjectEntry> = []
        live.reserveCapacity(rest.count + 1)
        for case let entry? in CollectionOfOne(first) + rest {
            if keep(entry) {
                live.append(entry)
            } else {
                swept?.append(entry)
                swept? += dropQueue(of: entry)
            }
        }
        first = nil
        rest = []
        rest.reserveCapacity(live.count)
        holes = 0
        for entry in live { place(entry) }
    }
}

/// The subscribers of a subject at one moment, in subscription order.
@usableFromInline
struct ConduitSnapshot {
    @usableFromInline let first: SubjectEntry?
    @usableFromInline let rest: ContiguousArray<SubjectEntry?>?

    @inlinable
    init(first: SubjectEntry?, rest: ContiguousArray<SubjectEntry?>?) {
        self.first = first
        self.rest = rest
    }

    /// How many slots the snapshot has (holes included).
    @inlinable
    var count: Int { (first == nil ? 0 : 1) + (rest?.count ?? 0) }

    /// Calls `body` with each subscriber, in order.
    @inlinable
    func forEach(_ body: (SubjectEntry) -> Void) {
        if let first { body(first) }
        guard let rest else { return }
        for case let entry? in rest { body(entry) }
    }
}
