/// The slots a collection's writes touched since an earlier state, kept by `DocumentItems` with each write and
/// bounded: what an index made of an earlier state (a search text, a field's text, a sort order) is brought up
/// to date by, at the cost of the change, where lining up every item of the two states by identity cost 10-20
/// ms on 100,000 items in a debug build.
///
/// A slot keeps its place until the slots are renumbered (`DocumentItems.compact`, after many deletes, which
/// empties the log): a write replaces the item in its slot, a new item takes a new slot at the end, and a
/// delete leaves its slot empty (a hole), never filled again.
package struct DocumentChangeLog: Sendable {
    /// What a write did to its slot.
    package enum Kind: UInt8, Sendable {
        case updated, inserted, deleted
    }

    /// One write: its journal id, its slot, what it did.
    package struct Change: Sendable {
        package var seq: Int64
        package var slot: Int
        package var kind: Kind
    }

    /// The most writes kept; past it the older half is dropped.
    package static let limit = 8_192

    /// The writes in the order they were applied (their ids ascending).
    package private(set) var changes: [Change] = []
    /// The log holds every write after the state of this journal id (an index of an earlier state cannot be
    /// brought up to date by it).
    package private(set) var since: Int64 = 0

    /// Notes a write. A journal id not above the last one leaves the log unused from then on: the states' ids
    /// no longer tell them apart (the indexes then line up the items instead).
    mutating func record(seq: Int64, slot: Int, kind: Kind) {
        guard since < .max else { return }
        if seq <= changes.last?.seq ?? since {
            changes.removeAll()
            since = .max
            return
        }
        changes.append(Change(seq: seq, slot: slot, kind: kind))
        if changes.count > Self.limit {
            let dropped = changes.count / 2
            since = changes[dropped - 1].seq
            changes.removeFirst(dropped)
        }
    }

    /// Drops every write: only the states from the one of `seq` on are told apart from now (the slots were
    /// renumbered by the write of `seq`).
    mutating func restart(after seq: Int64) {
        changes.removeAll()
        since = max(since, seq)
    }

    /// The writes after the state of `seq`, in order; nil when the log no longer holds them all.
    package func changes(after seq: Int64) -> ArraySlice<Change>? {
        guard seq >= since else { return nil }
        // NB: by binary search: the ids ascend.
        var (low, high) = (0, changes.count)
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].seq <= seq { low = middle + 1 } else { high = middle }
        }
        return changes[low...]
    }
}
