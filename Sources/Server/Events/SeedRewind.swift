import Domain
import Foundation
import Storage
import Support

/// The seeds' state taken back before their newest entries, so that a restarted server sends those entries
/// through its own view models again, oldest first, and makes their events with the ids and data the first
/// run gave them: a `Last-Event-ID` from before the restart then resumes as if the server had not stopped.
/// It is a data file's restart (`DocumentRewind`, `DataFileService.start(on:)`) over the seeds' rows: each
/// entry keeps the item before it, and undoing the entries newest first from the current todos gives the
/// list before them.
///
/// - The todos: `Journal.recent` keeps each todo entry's todo before it (nil: the entry inserted it); a delete
///   whose todo is not kept (an entry of an older server) cannot be undone, and the walk stops there.
/// - The other inputs are singular resources: an entry's item before it is the topic's previous entry, also
///   when an older server did not keep it; before the oldest one read, the kept item or none.
/// - The walk stops at `count` entries and once the lists the todos events carry would pass `bytes` (the
///   recent-events log's bounds: a start encodes at most about twice what the log holds).
///
/// ```swift
/// let rewind = SeedRewind(journal.recent(limit: 1024, bytes: 16 << 20), todos: start.todos, count: 1024,
///                         bytes: 16 << 20)
/// // build the view models on rewind.todos, attach the hub, then send rewind.entries (oldest first)
/// ```
struct SeedRewind {
    /// The todos before `entries`, in id order.
    var todos: [Todo]
    /// The entries undone, oldest first.
    var entries: [JournalEntry]

    /// `todos` taken back before as many of `recent` (newest first, as `Journal.recent` reads them) as can be
    /// undone, within `count` entries and `bytes` of todos lists.
    init(_ recent: [JournalRow], todos current: [Todo], count: Int, bytes: Int) {
        let todosRows = DocumentRows(
            name: JournalChange.todos, kind: .collection,
            items: current.map { (String($0.id), JournalChange(TodoChange.upsert($0)).document ?? "") },
            places: current.map { Int64($0.id) })
        let rows = Self.rows(recent.prefix(Self.count(recent, todos: todosRows, count: count, bytes: bytes)))
        // An input's current item is its newest entry's (the rows are the newest entries, all topics).
        var newest: [String: String?] = [:]
        for row in rows where row.topic != JournalChange.todos && newest[row.topic] == nil {
            newest[row.topic] = row.change.document
        }
        let inputs = newest.map { topic, document in
            DocumentRows(
                name: topic, kind: .singular, items: document.map { [("", $0)] } ?? [],
                places: document == nil ? [] : [0])
        }
        let rewind = DocumentRewind([todosRows] + inputs, recent: rows, count: count)
        let rewound = rewind.resources.first { $0.name == JournalChange.todos }?.items ?? []
        // NB: a todo the entries left as it is now is the store's own value, so the task list and the store
        // share it (one title in memory).
        let held = Dictionary(current.map { ($0.id, $0) }) { $1 }
        todos = rewound.compactMap { row in
            guard let todo = try? JSONDecoder().decode(Todo.self, from: Data(row.body.utf8)) else { return nil }
            return held[todo.id] == todo ? held[todo.id] : todo
        }
        entries = rewind.entries
    }

    /// How many of `recent` the walk may take: `count` at most, and no more once the todos lists their events
    /// carry (each at least its JSON) passed `bytes` (the newest at least).
    private static func count(_ recent: [JournalRow], todos: DocumentRows, count: Int, bytes: Int) -> Int {
        var listBytes = todos.items.reduce(2) { $0 + $1.body.utf8.count + 1 }
        var total = 0
        var taken = 0
        for row in recent.prefix(max(0, count)) {
            guard taken == 0 || total <= bytes else { break }
            taken += 1
            guard row.topic == JournalChange.todos else { continue }
            total += listBytes
            listBytes += (row.before?.utf8.count ?? 0) - (row.change.document?.utf8.count ?? 0)
        }
        return taken
    }

    /// `recent` (newest first) with each entry's item before it as `DocumentRewind` reads it: `[place,item]`,
    /// `null` when there was none, nil when it is not known.
    private static func rows(_ recent: ArraySlice<JournalRow>) -> [JournalRow] {
        // NB: oldest first, so each input entry finds its topic's entry before it at once.
        var previous: [String: String?] = [:]
        var rows: [JournalRow] = []
        for row in recent.reversed() {
            var before: String?
            var change = row.change
            if row.topic == JournalChange.todos {
                // NB: each todo as the server encodes it, whatever the engine keeps (PostgreSQL's text of a
                // JSON value), so an entry's todo and the current list's compare byte for byte.
                change = row.change.todoChange.map { JournalChange($0) } ?? row.change
                let place = row.change.id ?? ""
                if let kept = row.before {
                    let todo = try? JSONDecoder().decode(Todo.self, from: Data(kept.utf8))
                    before = todo.flatMap { JournalChange(TodoChange.upsert($0)).document }.map { "[\(place),\($0)]" }
                } else {
                    // NB: no todo before it: an insert, or a delete an older server did not keep.
                    before = row.change.document == nil ? nil : "null"
                }
            } else {
                let older = previous[row.topic] ?? row.before
                before = older.map { "[0,\($0)]" } ?? "null"
                previous[row.topic] = .some(row.change.document)
            }
            rows.append(JournalRow(seq: row.seq, change: change, before: before))
        }
        return rows.reversed()
    }
}
