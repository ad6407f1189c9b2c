import Synchronization

/// A subject's subscribers in subscription order: slot 0 in `first`, the others in `rest`. A cancelled one
/// leaves a hole (nil) until the next compaction, so removal is O(1) amortized and delivery order stays
/// stable. Non-generic, so the cancel path runs without generic metadata lookups.
// NB: the first subscriber is kept out of the array: a subject with one subscriber (most of them; a
// `switchToLatest` inner, a view model's property) allocates no array for it.
// NB: @unchecked Sendable: it only lives inside its subject's Mutex.
@usableFromInline
struct SubscriberList: @unchecked Sendable {
    @usableFromInline var first: ConduitBase?
    @usableFromInline var rest: ContiguousArray<ConduitBase?> = []
    @usableFromInline var completed = false
    @usableFromInline var upstreams: [any Subscription] = []
    /// Upstreams not yet asked for values: no subscriber had demand when they arrived.
    @usableFromInline var unrequested: [any Subscription] = []
    /// The overflow queues of conduits whose deliveries met (rare: kept here so a conduit spends no field on it).
    @usableFromInline var queues: [ObjectIdentifier: ConduitQueueBase] = [:]
    private var holes = 0

    @inlinable init() {}

    /// The subscribers, to deliver to outside the lock (no reference to the array when it is empty, so a
    /// send to one subscriber retains only that one).
    @inlinable
    var snapshot: ConduitSnapshot { ConduitSnapshot(first: first, rest: rest.isEmpty ? nil : rest) }

    /// Appends a conduit and records its slot.
    @inlinable
    mutating func append(_ conduit: ConduitBase) {
        if first == nil, rest.isEmpty {
            conduit.slot = 0
            first = conduit
        } else {
            conduit.slot = Int32(truncatingIfNeeded: rest.count + 1)
            rest.append(conduit)
        }
    }

    /// Whether a subscriber has outstanding demand.
    @usableFromInline
    func anyHasDemand() -> Bool {
        if let first, first.state.load(ordering: .relaxed) >= ConduitFlags.demandUnit { return true }
        return rest.contains { $0.map { $0.state.load(ordering: .relaxed) >= ConduitFlags.demandUnit } ?? false }
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
    /// more than half of it is holes.
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

    private mutating func compact() {
        let live = [first].compactMap { $0 } + rest.compactMap { $0 }
        first = nil
        rest = []
        rest.reserveCapacity(live.count)
        holes = 0
        for conduit in live { append(conduit) }
    }
}

/// The subscribers of a subject at one moment, in subscription order.
@usableFromInline
struct ConduitSnapshot {
    @usableFromInline let first: ConduitBase?
    @usableFromInline let rest: ContiguousArray<ConduitBase?>?

    @inlinable
    init(first: ConduitBase?, rest: ContiguousArray<ConduitBase?>?) {
        self.first = first
        self.rest = rest
    }

    /// Calls `body` with each subscriber, in order.
    @inlinable
    func forEach(_ body: (ConduitBase) -> Void) {
        if let first { body(first) }
        guard let rest else { return }
        for case let conduit? in rest { body(conduit) }
    }
}
