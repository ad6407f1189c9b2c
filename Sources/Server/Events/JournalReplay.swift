import Domain
import Foundation
import HTTP
import Reactive
import Storage

/// The events of a server's previous runs, rebuilt at start from the SQLite journal so that a
/// `Last-Event-ID` resume survives a restart, each with its entry's id (`seq × 65536`):
///
/// - todos: each entry's event is the list after that change, byte for byte the frame the earlier run
///   sent (the list encoded as `GET /todos` encodes it; the `?diff=1` frame the change between the lists).
///   The lists are rebuilt from the current one backwards (`TodoJournalEntry.reverted`), newest first,
///   and the walk stops at the recent-events log's bounds, so a start encodes at most what the log holds.
/// - the other inputs (`inputs`): their entries are applied again, oldest first, to scratch view models
///   attached to a scratch hub: the same code that made the events the first time makes them again.
///
/// ```swift
/// let records = JournalReplay.records(try store.recentEntries(limit: 1024), current: todos, count: 1024,
///                                     bytes: 16 << 20)   // oldest first, each with its data
/// hub.seed(records)   // before the models are attached
/// ```
enum JournalReplay {
    /// The events of `rows` (newest first, as `Journal.recent` reads them), oldest first, within `count`
    /// events and `bytes` of frames (the newest kept): the todos events leading to `current`, and those of
    /// the other inputs, made by the `SharedInputs` that `inputs` builds on scratch models.
    static func records(
        _ rows: [JournalRow], current: [Todo], count: Int, bytes: Int,
        inputs: (LiveStateModels, JournaledImages) -> SharedInputs
    ) -> [(record: EventRecord, json: [UInt8])] {
        let todos = records(rows, current: current, count: count, bytes: bytes)
        let others = inputRecords(rows.reversed().filter { $0.topic != "todos" }, count: count, bytes: bytes, inputs)
        var merged: [(record: EventRecord, json: [UInt8])] = []
        var total = 0
        for event in (todos + others).sorted(by: { $0.record.id > $1.record.id }) {
            guard merged.count < count, merged.isEmpty || total + event.record.byteCount <= bytes else { break }
            total += event.record.byteCount
            merged.append(event)
        }
        return merged.reversed()
    }

    /// The events of the input entries `rows` (oldest first): applied in order to scratch models (the
    /// embedded sets, no selection) whose emissions a scratch hub records with the entries' ids.
    private static func inputRecords(
        _ rows: [JournalRow], count: Int, bytes: Int, _ inputs: (LiveStateModels, JournaledImages) -> SharedInputs
    ) -> [(record: EventRecord, json: [UInt8])] {
        guard let first = rows.first else { return [] }
        let images = JournaledImages()
        let models = LiveStateModels(
            todos: [], commitTodo: { _ in }, upstream: nil, loader: nil, imageLoader: images,
            scheduler: ImmediateScheduler.shared, shared: true)
        let hub = EventHub(ids: EventIDSource(journalFloor: 0), bufferCount: count, bufferBytes: bytes, heartbeat: nil)
        hub.attach(models, lists: ListSnapshots(models))
        let shared = inputs(models, images)
        defer {
            shared.cancel()
            hub.shutdown()
        }
        shared.replay(rows)
        let floor = UInt64(first.seq) * EventIDSource.journalBlock
        return hub.recorded.filter { $0.id >= floor && $0.topic != .todos }.map { record in
            // The value's JSON: the frame without `id: N\nevent: name\ndata: ` and its closing blank line.
            let head = "id: \(record.id)\nevent: \(record.topic.rawValue)\ndata: ".utf8.count
            let frame = record.frame.bytes
            return (record, Array(frame[min(head, frame.count)..<max(head, frame.count - 2)]))
        }
    }

    /// The events of `entries` (newest first, as `recentEntries` reads them) whose lists lead to `current`,
    /// oldest first: at most `count` of them and `bytes` of frames (the newest always, if any), and none
    /// older than an entry that cannot be reverted.
    static func records(
        _ rows: [JournalRow], current: [Todo], count: Int, bytes: Int
    ) -> [(record: EventRecord, json: [UInt8])] {
        let entries = rows.filter { $0.topic == JournalChange.todos }.map { TodoJournalEntry($0) }
        let encoder = JSONCoding.makeEncoder()
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
