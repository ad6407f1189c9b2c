import Domain
import Foundation
import HTTP
import Reactive
import Storage
import Support

/// The events of a server's previous runs, made again at start from the SQLite or PostgreSQL journal so that
/// a `Last-Event-ID` resume survives a restart, each with its entry's id (`seq × 65536`). As a data file's
/// entries are after `kill -9` (`DataFileService.start(on:)`), the entries are sent into a view model's
/// `committed` input, oldest first, and the hub records what its pipeline emits: the code that made the
/// events the first time makes them again, byte for byte. The view models are scratch copies attached to a
/// scratch hub, since the journal's state already holds the entries:
///
/// - todos: the list before the oldest entry replayed is rebuilt from the current one backwards
///   (`TodoJournalEntry.reverted`, newest first); the walk stops at the recent-events log's bounds, so a
///   start encodes at most about twice what the log holds;
/// - the other inputs (`inputs`): their entries are applied again, oldest first, by a `SharedInputs` on
///   scratch models (the embedded sets, no selection).
///
/// ```swift
/// let records = JournalReplay.records(journal.recent(limit: 1024, bytes: 16 << 20), current: todos,
///                                     count: 1024, bytes: 16 << 20)   // oldest first, each with its data
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
        let others = inputRecords(
            rows.reversed().filter { $0.topic != JournalChange.todos }, count: count, bytes: bytes, inputs)
        var merged: [(record: EventRecord, json: [UInt8])] = []
        var total = 0
        for event in (todos + others).sorted(by: { $0.record.id > $1.record.id }) {
            guard merged.count < count, merged.isEmpty || total + event.record.byteCount <= bytes else { break }
            total += event.record.byteCount
            merged.append(event)
        }
        return merged.reversed()
    }

    /// The events of the input entries `rows` (oldest first): applied in order to scratch models whose
    /// emissions a scratch hub records with the entries' ids.
    private static func inputRecords(
        _ rows: [JournalRow], count: Int, bytes: Int, _ inputs: (LiveStateModels, JournaledImages) -> SharedInputs
    ) -> [(record: EventRecord, json: [UInt8])] {
        guard let first = rows.first else { return [] }
        let images = JournaledImages()
        let models = scratchModels(todos: [], images: images)
        return scratchEvents(models, count: count, bytes: bytes, from: first.seq) {
            let shared = inputs(models, images)
            shared.replay(rows)
            shared.cancel()
        }.filter { $0.record.topic != .todos }
    }

    /// The todos events of `rows` (newest first, as `Journal.recent` reads them) whose lists lead to
    /// `current`, oldest first: at most `count` of them and `bytes` of frames (the newest always, if any), and
    /// none older than an entry that cannot be reverted.
    static func records(
        _ rows: [JournalRow], current: [Todo], count: Int, bytes: Int
    ) -> [(record: EventRecord, json: [UInt8])] {
        let (start, entries) = replayedTodos(rows, current: current, count: count, bytes: bytes)
        guard let first = entries.first else { return [] }
        let models = scratchModels(todos: start, images: JournaledImages())
        return scratchEvents(models, count: count, bytes: bytes, from: first.seq) {
            for entry in entries { models.todos.committed.send(Committed(seq: entry.seq, change: entry.change)) }
        }.filter { $0.record.topic == .todos }
    }

    /// The todo entries of `rows` (newest first) to replay, oldest first, and the list before the oldest of
    /// them: the walk back from `current` stops at `count` entries, once the lists passed `bytes` (each list's
    /// frame is at least its JSON), and before an entry that cannot be reverted.
    private static func replayedTodos(
        _ rows: [JournalRow], current: [Todo], count: Int, bytes: Int
    ) -> (start: [Todo], entries: [TodoJournalEntry]) {
        var after = current
        var entries: [TodoJournalEntry] = []
        var total = 0
        for row in rows where row.topic == JournalChange.todos {
            guard entries.count < count, entries.isEmpty || total <= bytes, let entry = TodoJournalEntry(row),
                let before = entry.reverted(after)
            else { break }
            total += (try? JSONCoding.encode(after).count) ?? 0
            entries.append(entry)
            after = before
        }
        return (after, entries.reversed())
    }

    /// View models for a replay: `todos`, the embedded sets, no upstream, no selection.
    private static func scratchModels(todos: [Todo], images: JournaledImages) -> LiveStateModels {
        LiveStateModels(
            todos: todos, commitTodo: { _ in }, upstream: nil, loader: nil, imageLoader: images,
            scheduler: ImmediateScheduler.shared)
    }

    /// The events `send` makes `models` emit, recorded by a scratch hub within `count` events and `bytes` of
    /// frames (the newest kept), from the entry `seq` on (the models' first emissions, at attach, are not
    /// journaled, so their ids are below it), each with its value's JSON.
    private static func scratchEvents(
        _ models: LiveStateModels, count: Int, bytes: Int, from seq: Int64, _ send: () -> Void
    ) -> [(record: EventRecord, json: [UInt8])] {
        let hub = EventHub(ids: EventIDSource(journalFloor: 0), bufferCount: count, bufferBytes: bytes, heartbeat: nil)
        let lists = ListSnapshots(models)
        hub.attach(models, lists: lists)
        defer { hub.shutdown() }
        // NB: the lists' snapshots follow the models only while they live.
        withExtendedLifetime(lists) { send() }
        let floor = UInt64(seq) * EventIDSource.journalBlock
        return hub.recorded.filter { $0.id >= floor }.map { record in
            // The value's JSON: the frame without `id: N\nevent: name\ndata: ` and its closing blank line.
            let head = "id: \(record.id)\nevent: \(record.topic.rawValue)\ndata: ".utf8.count
            let frame = record.frame.bytes
            return (record, Array(frame[min(head, frame.count)..<max(head, frame.count - 2)]))
        }
    }
}
