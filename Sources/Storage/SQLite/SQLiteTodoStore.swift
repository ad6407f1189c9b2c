package import Domain
import Support
import Synchronization

/// The todos in an SQLite file: WAL journal with `synchronous=FULL`, so a call that returns has committed
/// its change to disk and it survives `kill -9` or a power cut; ids come from `AUTOINCREMENT` and are never
/// reused. A fresh file starts with `{"id":1,"title":"Buy Milk","completed":false}` (seed 004).
///
/// Every write commits the todo row and its journal entry (`SQLiteEntries`: the `todos` collection, the
/// todo's id, the todo after the change and the todo before it) in one transaction, so neither exists
/// without the other, even after a crash between them; the entry's id is commit order (one writer at a
/// time), and only the newest `retention` entries are kept. `onCommit` hears each id before the write
/// returns.
///
/// One connection, guarded by a `Mutex`: SQLite writes one transaction at a time anyway.
///
/// ```swift
/// let store = try SQLiteTodoStore(path: "./livestate.sqlite")   // or ":memory:"
/// let todo = try store.insert(title: "Walk the dog", completed: false)
/// ```
package final class SQLiteTodoStore: Sendable {
    private let connection: Mutex<SQLiteConnection>
    private let file: SQLiteFileGuard
    private let retention: Int64
    private let committed = Mutex<(@Sendable (Int64) -> Void)?>(nil)

    /// The journal id this run took at start: every entry it writes is above it, and its events that are
    /// not journaled are numbered after it, in a block no earlier run used (so no event id repeats across
    /// restarts).
    package let startSeq: Int64

    /// Opens or creates the database at `path` (`:memory:` keeps nothing on disk), keeping the newest
    /// `retention` journal entries.
    package init(path: String, retention: Int = 100_000) throws(JournalError) {
        file = try SQLiteFileGuard(path: path)
        self.retention = Int64(max(1, retention))
        let connection = try SQLiteConnection(path: path)
        do throws(JournalError) {
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            try Self.check(connection)
            try SQLiteSchema.migrate(connection)
            startSeq = try SQLiteEntries.takeStartSeq(connection)
        } catch {
            // NB: SQLite's own words ("file is not a database") do not say which file; the person does.
            throw error.explained(by: "cannot use \(path)")
        }
        self.connection = Mutex(connection)
    }

    /// `PRAGMA quick_check`: a damaged file is refused at start rather than served as empty or wrong rows.
    private static func check(_ connection: SQLiteConnection) throws(JournalError) {
        let rows = try connection.query("PRAGMA quick_check")
        let first = rows.first?.first?.text ?? "no answer"
        guard first == "ok" else { throw JournalError.failed("the file is damaged (quick_check: \(first))") }
    }

    /// Calls `handler` with the journal id of every write committed from now on, before the write returns
    /// (so under the caller's lock: the server pins it as the id of the event the write causes).
    package func onCommit(_ handler: @escaping @Sendable (Int64) -> Void) {
        committed.withLock { $0 = handler }
    }

    /// Copies the WAL into the file and empties it (a clean stop leaves one file, as closing would).
    package func checkpoint() {
        connection.withLock { connection in _ = try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Every todo, ordered by id.
    package func all() throws(JournalError) -> [Todo] {
        try connection.withLock { connection throws(JournalError) in
            try connection.query("SELECT id, title, completed FROM todos ORDER BY id").map(Self.todo)
        }
    }

    /// The newest `limit` todo entries, newest first (a restart rebuilds its recent events from them).
    package func recentEntries(limit: Int) throws(JournalError) -> [TodoJournalEntry] {
        try connection.withLock { connection throws(JournalError) in
            try SQLiteEntries.newest(of: JournalChange.todos, limit: limit, connection).compactMap { row in
                TodoJournalEntry(JournalRow(seq: row.entry.seq, change: row.entry.change, before: row.before))
            }
        }
    }

    /// The newest entry of `topic`; nil when the journal holds none.
    package func latest(topic: String) throws(JournalError) -> (seq: Int64, json: String)? {
        try connection.withLock { connection throws(JournalError) in
            try SQLiteEntries.newest(of: topic, limit: 1, connection).first.map {
                ($0.entry.seq, $0.entry.change.document ?? "")
            }
        }
    }

    /// The newest entries of every topic, newest first: at most `limit`, and no more than `bytes` of JSON
    /// (the newest always): the sizes are read first, so an image entry beyond the bound is never loaded.
    package func recent(limit: Int, bytes: Int) throws(JournalError) -> [JournalRow] {
        try connection.withLock { connection throws(JournalError) in
            try SQLiteEntries.recent(limit: limit, bytes: bytes, connection).map(Self.row)
        }
    }

    /// Inserts a todo and commits it with its journal entry; the id is new.
    package func insert(title: String, completed: Bool) throws(JournalError) -> Todo {
        guard case .committed(let todo?, _) = try commit(.insert(title: title, completed: completed), key: nil) else {
            throw JournalError.failed("the insert wrote no row")
        }
        return todo
    }

    /// Replaces title and completion of `todo.id` and commits with its journal entry; `false` when there is
    /// no such todo (nothing is written).
    package func update(_ todo: Todo) throws(JournalError) -> Bool {
        try commit(.update(id: todo.id, title: todo.title, completed: todo.completed), key: nil) != .unchanged
    }

    /// Deletes `id` and commits with its journal entry; `false` when there is no such todo.
    package func delete(id: Int) throws(JournalError) -> Bool {
        try commit(.delete(id: id), key: nil) != .unchanged
    }

    /// Commits a todo write with its journal entry (the todo after it, and the row before it) under `key`
    /// (the client's `Idempotency-Key`, or nil); `.unchanged` when an update or delete names no todo,
    /// `.repeated` when `key` was committed before (nothing is written either way). The todo is nil for a
    /// delete.
    package func commit(_ write: TodoWrite, key: String?) throws(JournalError) -> SQLiteCommit<Todo?> {
        try journaled(key: key) { connection throws(JournalError) -> (Todo?, JournalChange, before: Todo?)? in
            switch write {
            case .insert(let title, let completed):
                try connection.query(
                    "INSERT INTO todos (title, completed) VALUES (?, ?)", [.text(title), .integer(completed ? 1 : 0)])
                let todo = Todo(id: Int(connection.lastInsertRowID), title: title, completed: completed)
                return (todo, JournalChange(.upsert(todo)), nil)
            case .update(let id, let title, let completed):
                guard let before = try Self.row(id, connection) else { return nil }
                let todo = Todo(id: id, title: title ?? before.title, completed: completed ?? before.completed)
                try connection.query(
                    "UPDATE todos SET title = ?, completed = ? WHERE id = ?",
                    [.text(todo.title), .integer(todo.completed ? 1 : 0), .integer(Int64(todo.id))])
                return (todo, JournalChange(.upsert(todo)), before)
            case .delete(let id):
                guard let before = try Self.row(id, connection) else { return nil }
                try connection.query("DELETE FROM todos WHERE id = ?", [.integer(Int64(id))])
                return (nil, JournalChange(.delete(id: id)), before)
            }
        }
    }

    /// Commits one journal entry of `topic` holding `json` (an input other than a todo write: a selection,
    /// a keyword, a refresh, a downloaded image) under `key` (the client's `Idempotency-Key`, or nil) and
    /// answers its id — or, when `key` was committed before, that entry (nothing is written).
    package func append(topic: String, json: String, key: String? = nil) throws(JournalError) -> SQLiteCommit<Void> {
        let commit = try journaled(key: key) { _ in ((), JournalChange.input(topic: topic, json: json), nil) }
        if case .unchanged = commit { throw JournalError.failed("the entry was not written") }
        return commit
    }

    /// The entry committed under `key`; nil when there is none (any more: keys go with their entries).
    package func entry(key: String) throws(JournalError) -> JournalRow? {
        try connection.withLock { connection throws(JournalError) in
            try SQLiteEntries.entry(key: key, connection).map(Self.row)
        }
    }

    /// Runs `body` and writes the journal entry it returns (its change, and the todo before it) in one
    /// transaction (nil: nothing to write, rolled back) under `key`: the entry takes the next id, entries
    /// beyond `retention` are deleted (their keys with them). Answers `body`'s result and the entry's id;
    /// when `key` names an entry already, that entry, and neither `body` nor a write runs.
    private func journaled<T>(
        key: String?, _ body: (SQLiteConnection) throws(JournalError) -> (T, JournalChange, before: Todo?)?
    ) throws(JournalError) -> SQLiteCommit<T> {
        let commit = try writing { connection throws(JournalError) -> SQLiteCommit<T> in
            try connection.query("BEGIN IMMEDIATE")
            do throws(JournalError) {
                if let key, let first = try SQLiteEntries.entry(key: key, connection) {
                    try connection.query("ROLLBACK")
                    return .repeated(Self.row(first))
                }
                guard let (result, change, before) = try body(connection) else {
                    try connection.query("ROLLBACK")
                    return .unchanged
                }
                let seq = try SQLiteEntries.insert(
                    change, before: try before.map { todo throws(JournalError) in try Self.json(todo) },
                    key: key.map { WriteKey(key: $0, request: change.collection) }, connection)
                try SQLiteEntries.delete(upTo: seq - retention, connection)
                try connection.query("COMMIT")
                return .committed(result, seq: seq)
            } catch {
                _ = try? connection.query("ROLLBACK")
                throw error
            }
        }
        if case .committed(_, let seq) = commit, let handler = committed.withLock({ $0 }) { handler(seq) }
        return commit
    }

    private static func row(_ stored: SQLiteEntries.Row) -> JournalRow {
        JournalRow(seq: stored.entry.seq, change: stored.entry.change, before: stored.before)
    }

    private static func json(_ todo: Todo) throws(JournalError) -> String {
        do {
            return try JSONCoding.text(todo)
        } catch {
            throw JournalError.failed("a todo did not encode: \(error)")
        }
    }

    /// Runs a write under the lock, checking that the data file is still the one opened, before (nothing
    /// is written into a file that is gone) and after (a file deleted meanwhile got a commit nobody will read:
    /// the caller is told it failed, so it never answers 2xx for it).
    private func writing<T>(_ body: (SQLiteConnection) throws(JournalError) -> T) throws(JournalError) -> T {
        try connection.withLock { connection throws(JournalError) in
            try file.check()
            let result = try body(connection)
            try file.check()
            return result
        }
    }

    private static func row(_ id: Int, _ connection: SQLiteConnection) throws(JournalError) -> Todo? {
        try connection.query("SELECT id, title, completed FROM todos WHERE id = ?", [.integer(Int64(id))])
            .first.map(todo)
    }

    private static func todo(_ row: [SQLiteValue]) -> Todo {
        Todo(id: Int(row[0].integer ?? 0), title: row[1].text ?? "", completed: (row[2].integer ?? 0) != 0)
    }
}

/// What a write into the journal did.
package enum SQLiteCommit<Value> {
    /// Committed: the write's result and its entry's id.
    case committed(Value, seq: Int64)
    /// Nothing to write (an update or delete of a todo that does not exist); nothing was written.
    case unchanged
    /// Its key was committed before, by this entry; nothing was written.
    case repeated(JournalRow)
}

extension SQLiteCommit: Equatable where Value: Equatable {}
