import Domain
import Foundation
import HTTP
import Storage

/// The todos events of a server's previous runs, rebuilt at start from the SQLite journal so that a
/// `Last-Event-ID` resume survives a restart: each entry's event is the list after that change, with the
/// entry's id (`seq × 65536`), byte for byte the frame the earlier run sent (the list encoded as `GET
/// /todos` encodes it; the `?diff=1` frame the change between the lists).
///
/// The lists are rebuilt from the current one backwards (`SQLiteJournalEntry.reverted`), newest first, and
/// the walk stops at the recent-events log's bounds, so a start encodes at most what the log can hold.
///
/// ```swift
/// let records = JournalReplay.records(try store.recentEntries(limit: 1024), current: todos, count: 1024,
///                                     bytes: 16 << 20)   // oldest first, each with its data
/// hub.seed(records)   // before the models are attached
/// ```
enum JournalReplay {
    /// The events of `entries` (newest first, as `recentEntries` reads them) whose lists lead to `current`,
    /// oldest first: at most `count` of them and `bytes` of frames (the newest always, if any), and none
    /// older than an entry that cannot be reverted.
    static func records(
        _ rows: [JournalRow], current: [Todo], count: Int, bytes: Int
    ) -> [(record: EventRecord, json: [UInt8])] {
        let entries = rows.filter { $0.topic == "todos" }.map { SQLiteJournalEntry(seq: $0.seq, json: $0.json) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var after = current
        var records: [(record: EventRecord, json: [UInt8])] = []
        var total = 0
        for entry in entries {
            guard records.count < count, let entry, let before = entry.reverted(after),
                let json = try? JSONCoding.encode(after),
                let diff = try? encoder.encode(CollectionDiff(from: before, to: after))
            else { break }
            let record = EventRecord(
                id: UInt64(entry.seq) * EventIDSource.journalBlock, topic: .todos, json: json, diffJSON: Array(diff))
            guard records.isEmpty || total + record.byteCount <= bytes else { break }
            total += record.byteCount
            records.append((record, json))
            after = before
        }
        return records.reversed()
    }
}
