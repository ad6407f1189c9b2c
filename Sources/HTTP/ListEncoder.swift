import Foundation
package import Support
import Synchronization

/// Encodes a list against the list it encoded before, so a list that changed in one place costs that
/// place: the unchanged items at the front and at the back have their bytes copied from the previous body
/// in two runs; only the items between them are looked at one by one (taken from the previous bytes when
/// they only moved, encoded when they are new or changed). Given the change that made the list
/// (`encode(_:change:)`, what the view model applied), those runs are known and no item is compared; given
/// the list alone, they are found by comparing the lists by position. The output is byte for byte
/// `JSONCoding.encode(list)` (compact, sorted keys, slashes not escaped).
///
/// It also tells what changed since the previous list, as `?diff=1` sends it, built from the same bytes:
/// `{"deleted":[ids],"inserted":[items],"updated":[items]}`; and the body's entity tag, kept from the
/// changed run too (`ListDigest`), so serving a version costs no checksum of the whole body.
///
/// ```swift
/// let encoder = ListEncoder<[Todo]>()
/// _ = try encoder.encode([a, b])          // encodes a and b
/// let next = try encoder.encode([a, c])   // encodes c only; next.diff: deleted [b.id], inserted [c]
/// _ = try encoder.encode([a, c2], change: .updated(c2, at: 1))   // encodes c2, compares nothing
/// ```
///
/// `List` is the list's type: an array, or a `ChunkedList` kept (as `previous`) without a copy.
package final class ListEncoder<List: RandomAccessCollection & RangeReplaceableCollection & Sendable>: Sendable
where
    List.Index == Int, List.Element: Identifiable & Equatable & Encodable & Sendable,
    List.Element.ID: Encodable & Sendable
{
    /// The list's items.
    package typealias Item = List.Element

    /// One list's bytes and its change from the list before.
    package struct Encoded: Sendable {
        /// `JSONCoding.encode(list)`.
        package var bytes: [UInt8]
        /// The change from the previous list; nil for the first list, or when this list or the one before
        /// holds one id twice (then the caller computes the change its own way).
        package var diff: [UInt8]?
        /// The body's strong entity tag (`ListDigest.tag`), the same for the same bytes on any instance
        /// and after a restart; nil when the list holds one id twice (then the body's checksum serves).
        package var tag: String? = nil
    }

    private struct State {
        /// The list encoded last, its bytes, and where each of its items starts in them.
        var previous = List()
        var body: [UInt8] = Array("[]".utf8)
        // NB: `starts[k]` is where item k begins; `starts[count]` is `body.count`. Item k's bytes end one
        // byte before `starts[k + 1]` (its comma, or the closing bracket), so a run of items is one slice.
        var starts: [Int] = [2]
        /// How often each id occurs in `previous`, and how many ids occur more than once: kept up to date
        /// from the changed run alone, so telling a list with a repeated id costs no pass over the list.
        var counts: [Item.ID: Int] = [:]
        var repeated = 0
        /// The entity tag's digest of `body`, whose items' bytes it hashes.
        var digest = ListDigest()
        var isFirst = true
        var encoder = JSONCoding.makeEncoder()
        /// The body before `body`: its buffer is written over by the next encoding when nothing holds it any
        /// more (the snapshot and the answers in flight let go of it once `body` replaced it).
        var spare: [UInt8] = []
    }

    private let state = Mutex(State())

    package init() {}

    /// The bytes of `list`, encoding only the items whose id is new or whose value changed.
    package func encode(_ list: List) throws -> Encoded {
        try encode(list, change: nil)
    }

    /// The bytes of `list`, which `change` made from the list encoded before: only the changed item is
    /// encoded, and nothing is compared. A change that does not fit the lists (or nil, or the first list)
    /// is found by comparing them, as `encode(_:)` does.
    package func encode(_ list: List, change: ListChange<Item>?) throws -> Encoded {
        try state.withLock { state throws -> Encoded in
            do {
                let (front, back) = Self.unchangedRuns(of: list, change: change, from: state)
                return try Self.encode(list, front: front, back: back, &state)
            } catch {
                // NB: a half-done pass may leave the counts out of step with `previous`: start afresh.
                state = State()
                throw error
            }
        }
    }

    /// The unchanged runs: `front` items equal at the start, `back` items equal at the end (not overlapping),
    /// as `change` says when it fits the lists (checked on the changed item alone), else by comparing them.
    private static func unchangedRuns(
        of list: List, change: ListChange<Item>?, from state: State
    ) -> (front: Int, back: Int) {
        let previous = state.previous
        if !state.isFirst, let change {
            switch change {
            case .inserted(let item, let index)
            where list.count == previous.count + 1 && (0..<list.count).contains(index) && list[index].id == item.id:
                return (index, previous.count - index)
            case .updated(let item, let index)
            where list.count == previous.count && (0..<list.count).contains(index) && list[index].id == item.id
                && previous[index].id == item.id:
                return (index, previous.count - index - 1)
            case .deleted(let item, let index)
            where list.count == previous.count - 1 && (0..<previous.count).contains(index)
                && previous[index].id == item.id:
                return (index, previous.count - index - 1)
            case .unchanged where list.count == previous.count:
                return (list.count, 0)
            default:
                break
            }
        }
        let shorter = min(previous.count, list.count)
        var front = 0
        while front < shorter, previous[front] == list[front] { front += 1 }
        var back = 0
        while back < shorter - front, previous[previous.count - 1 - back] == list[list.count - 1 - back] { back += 1 }
        return (front, back)
    }

    private static func encode(_ list: List, front: Int, back: Int, _ state: inout State) throws -> Encoded {
        let previous = state.previous
        let oldBody = state.body
        let oldRun = front..<(previous.count - back)
        let newRun = front..<(list.count - back)

        // The old run's items by id, with where their bytes are and their hash: an item that only moved is
        // copied. The items just before and after the run are hashed for the digest's pairs too.
        var oldItems: [Item.ID: (item: Item, bytes: Range<Int>, hash: ListDigest.Item)] = [:]
        var oldHashes: [ListDigest.Item] = []
        oldHashes.reserveCapacity(oldRun.count)
        for index in oldRun {
            let bytes = state.starts[index]..<(state.starts[index + 1] - 1)
            let hash = ListDigest.Item(oldBody[bytes])
            oldHashes.append(hash)
            oldItems[previous[index].id] = (previous[index], bytes, hash)
        }
        let left = front > 0 ? ListDigest.Item(oldBody[state.starts[front - 1]..<(state.starts[front] - 1)]) : .start
        let right =
            back > 0
            ? ListDigest.Item(oldBody[state.starts[oldRun.upperBound]..<(state.starts[oldRun.upperBound + 1] - 1)])
            : .end
        var newHashes: [ListDigest.Item] = []
        newHashes.reserveCapacity(newRun.count)
        let frontEnd = state.starts[front] - 1
        let backStart = state.starts[oldRun.upperBound]
        let backStarts = Array(state.starts[oldRun.upperBound..<previous.count])
        // NB: taken out of the state, so the front's starts are kept in place, not copied.
        var starts = state.starts
        state.starts = []
        starts.removeSubrange(front...)

        // NB: the spare buffer is written over when no one else holds it (else this makes a new one). A new
        // body per write (2 MiB at 3,000 todos) fragmented the heap: the small allocations made between two
        // writes (titles, events) split each freed body's space, and RSS grew by half again.
        var body = state.spare
        state.spare = []
        body.removeAll(keepingCapacity: true)
        // NB: a power of two, so the bodies of a list that grows by an item at a time mostly have one size and
        // the spare keeps fitting (exact sizes, each a little larger than the last, fragment the heap).
        body.reserveCapacity(1 << (Int.bitWidth - (oldBody.count + 1024).leadingZeroBitCount))
        body.append(UInt8(ascii: "["))
        if front > 0 { body.append(contentsOf: oldBody[1..<frontEnd]) }
        var inserted: [UInt8] = []
        var updated: [UInt8] = []
        var kept = Set<Item.ID>()
        for index in newRun {
            let item = list[index]
            if body.count > 1 { body.append(UInt8(ascii: ",")) }
            starts.append(body.count)
            kept.insert(item.id)
            let known = oldItems[item.id]
            if let known, known.item == item {
                body.append(contentsOf: oldBody[known.bytes])
                newHashes.append(known.hash)
                continue
            }
            let encoded = Array(try state.encoder.encode(item))
            body.append(contentsOf: encoded)
            newHashes.append(ListDigest.Item(encoded[...]))
            if known == nil { appendElement(encoded, to: &inserted) } else { appendElement(encoded, to: &updated) }
        }
        if back > 0 {
            if body.count > 1 { body.append(UInt8(ascii: ",")) }
            // The back's items start where they did, moved by how much the run grew or shrank.
            let shift = body.count - backStart
            starts.append(contentsOf: shift == 0 ? backStarts : backStarts.map { $0 + shift })
            body.append(contentsOf: oldBody[backStart..<(oldBody.count - 1)])
        }
        body.append(UInt8(ascii: "]"))
        starts.append(body.count)

        let hadRepeats = state.repeated > 0
        for index in oldRun { count(previous[index].id, by: -1, in: &state) }
        for index in newRun { count(list[index].id, by: 1, in: &state) }
        let deletedIDs = oldRun.map { previous[$0].id }.filter { !kept.contains($0) }
        let isFirst = state.isFirst
        state.previous = list
        state.spare = state.body
        state.body = body
        state.starts = starts
        state.isFirst = false
        state.digest.replace(oldHashes, with: newHashes, between: left, and: right)
        let tag = state.repeated == 0 ? state.digest.tag(count: list.count, length: body.count) : nil
        guard !isFirst, !hadRepeats, state.repeated == 0 else { return Encoded(bytes: body, diff: nil, tag: tag) }
        var diff = Array(#"{"deleted":"#.utf8)
        diff.append(contentsOf: try state.encoder.encode(deletedIDs))
        diff.append(contentsOf: #","inserted":["#.utf8)
        diff.append(contentsOf: inserted)
        diff.append(contentsOf: #"],"updated":["#.utf8)
        diff.append(contentsOf: updated)
        diff.append(contentsOf: "]}".utf8)
        return Encoded(bytes: body, diff: diff, tag: tag)
    }

    /// Counts one more (`by: 1`) or one fewer (`by: -1`) occurrence of `id`, and the ids that occur twice.
    private static func count(_ id: Item.ID, by change: Int, in state: inout State) {
        let before = state.counts[id, default: 0]
        let after = before + change
        state.counts[id] = after == 0 ? nil : after
        if before < 2, after >= 2 { state.repeated += 1 }
        if before >= 2, after < 2 { state.repeated -= 1 }
    }

    private static func appendElement(_ element: [UInt8], to list: inout [UInt8]) {
        if !list.isEmpty { list.append(UInt8(ascii: ",")) }
        list.append(contentsOf: element)
    }
}
