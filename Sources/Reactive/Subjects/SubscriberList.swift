/// A subject's subscribers in subscription order. A cancelled one leaves a hole (nil) until the next
/// compaction, so removal is O(1) amortized and delivery order stays stable. Non-generic, so the cancel path
/// runs without generic metadata lookups.
// NB: @unchecked Sendable: it only lives inside its subject's Mutex.
@usableFromInline
struct SubscriberList: @unchecked Sendable {
    @usableFromInline var conduits: ContiguousArray<ConduitBase?> = []
    @usableFromInline var completed = false
    @usableFromInline var upstreams: [any Subscription] = []
    /// Upstreams not yet asked for values: no subscriber had demand when they arrived.
    @usableFromInline var unrequested: [any Subscription] = []
    private var holes = 0

    @inlinable init() {}

    /// Appends a conduit and records its slot.
    @inlinable
    mutating func append(_ conduit: ConduitBase) {
        conduit.slot = Int32(truncatingIfNeeded: conduits.count)
        conduits.append(conduit)
    }

    /// Marks the subject complete and returns the conduits to finish.
    @usableFromInline
    mutating func complete() -> ContiguousArray<ConduitBase?> {
        guard !completed else { return [] }
        completed = true
        upstreams = []
        unrequested = []
        holes = 0
        defer { conduits = [] }
        return conduits
    }

    /// Forgets a conduit: its slot becomes a hole, trailing holes are trimmed, and the list is compacted once
    /// more than half of it is holes.
    @usableFromInline
    mutating func detach(_ conduit: ConduitBase) {
        let slot = Int(conduit.slot)
        guard slot < conduits.count, conduits[slot] === conduit else { return }
        conduits[slot] = nil
        holes += 1
        while let last = conduits.last, last == nil {
            conduits.removeLast()
            holes -= 1
        }
        if holes > 16, holes * 2 > conduits.count { compact() }
    }

    private mutating func compact() {
        var live = ContiguousArray<ConduitBase?>()
        live.reserveCapacity(conduits.count - holes)
        for case let conduit? in conduits {
            conduit.slot = Int32(truncatingIfNeeded: live.count)
            live.append(conduit)
        }
        conduits = live
        holes = 0
    }
}
