import Foundation
import Synchronization

/// Encodes a list item by item and keeps each item's bytes for the next list, so a list that changed in one
/// item costs one item's encoding: the rest is a lookup, an equality check and a copy of cached bytes. The
/// output is byte for byte `JSONCoding.encode(list)` (compact, sorted keys, slashes not escaped).
///
/// It also tells what changed since the previous list, as `?diff=1` sends it, built from the same bytes:
/// `{"deleted":[ids],"inserted":[items],"updated":[items]}`.
///
/// ```swift
/// let encoder = ListEncoder<Todo>()
/// _ = try encoder.encode([a, b])          // encodes a and b
/// let next = try encoder.encode([a, c])   // encodes c only; next.diff: deleted [b.id], inserted [c]
/// ```
package final class ListEncoder<Item: Identifiable & Equatable & Encodable & Sendable>: Sendable
where Item.ID: Encodable & Sendable {
    /// One list's bytes and its change from the list before.
    package struct Encoded: Sendable {
        /// `JSONCoding.encode(list)`.
        package var bytes: [UInt8]
        /// The change from the previous list; nil for the first list, or when the list holds one id twice
        /// (then the caller computes the change its own way).
        package var diff: [UInt8]?
    }

    private struct Entry {
        var item: Item
        var bytes: [UInt8]
        /// The encoding that last saw this id in its list.
        var seen: UInt64
    }

    private struct State {
        // NB: holds only ids of the latest list (entries of ids that left it are removed at once), so the
        // cache is as big as one list, however many lists went through.
        var entries: [Item.ID: Entry] = [:]
        var previous: [Item] = []
        var generation: UInt64 = 0
        var encoder: JSONEncoder = {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return encoder
        }()
    }

    private let state = Mutex(State())

    package init() {}

    /// The bytes of `list`, encoding only the items whose id is new or whose value changed.
    package func encode(_ list: [Item]) throws -> Encoded {
        try state.withLock { state throws -> Encoded in
            do {
                return try Self.encode(list, &state)
            } catch {
                // NB: a half-done pass leaves the cache out of step with `previous`: start afresh.
                state = State()
                throw error
            }
        }
    }

    private static func encode(_ list: [Item], _ state: inout State) throws -> Encoded {
        let first = state.generation == 0
        state.generation += 1
        let generation = state.generation
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        var inserted: [UInt8] = []
        var updated: [UInt8] = []
        var duplicate = false
        // Distinct ids of `list` met so far: fewer than the entries at the end means some ids left.
        var distinct = 0
        for item in list {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            let entry = state.entries[item.id]
            if let entry, entry.seen == generation { duplicate = true } else { distinct += 1 }
            if let entry, entry.item == item {
                bytes.append(contentsOf: entry.bytes)
                state.entries[item.id]?.seen = generation
                continue
            }
            let encoded = Array(try state.encoder.encode(item))
            bytes.append(contentsOf: encoded)
            state.entries[item.id] = Entry(item: item, bytes: encoded, seen: generation)
            if entry == nil { appendElement(encoded, to: &inserted) } else { appendElement(encoded, to: &updated) }
        }
        bytes.append(UInt8(ascii: "]"))
        var deletedIDs: [Item.ID] = []
        if state.entries.count > distinct {
            deletedIDs = state.previous.map(\.id).filter { state.entries[$0].map { $0.seen != generation } ?? false }
            state.entries = state.entries.filter { $0.value.seen == generation }
        }
        state.previous = list
        guard !first, !duplicate else { return Encoded(bytes: bytes, diff: nil) }
        var diff = Array(#"{"deleted":"#.utf8)
        diff.append(contentsOf: try state.encoder.encode(deletedIDs))
        diff.append(contentsOf: #","inserted":["#.utf8)
        diff.append(contentsOf: inserted)
        diff.append(contentsOf: #"],"updated":["#.utf8)
        diff.append(contentsOf: updated)
        diff.append(contentsOf: "]}".utf8)
        return Encoded(bytes: bytes, diff: diff)
    }

    private static func appendElement(_ element: [UInt8], to list: inout [UInt8]) {
        if !list.isEmpty { list.append(UInt8(ascii: ",")) }
        list.append(contentsOf: element)
    }
}
