package import Domain
import Synchronization

/// The todos in an SQLite file: WAL journal with `synchronous=FULL`, so a call that returns has committed
/// its change to disk and it survives `kill -9` or a power cut; ids come from `AUTOINCREMENT` and are never
/// reused. A fresh file starts with `{"id":1,"title":"Buy Milk","completed":false}` (seed 004).
///
/// One connection, guarded by a `Mutex`: SQLite writes one transaction at a time anyway.
///
/// ```swift
/// let store = try SQLiteTodoStore(path: "./livestate.sqlite")   // or ":memory:"
/// let todo = try store.insert(title: "Walk the dog", completed: false)
/// ```
package final class SQLiteTodoStore: TodoStore {
    private let connection: Mutex<SQLiteConnection>
    private let file: SQLiteFileGuard

    /// The schema version written to `PRAGMA user_version` once the table exists and is seeded.
    private static let schemaVersion = 1

    /// Opens or creates the database at `path` (`:memory:` keeps nothing on disk).
    package init(path: String) throws(TodoStoreError) {
        file = try SQLiteFileGuard(path: path)
        let connection = try SQLiteConnection(path: path)
        do {
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            try Self.check(connection)
            try Self.migrate(connection)
        } catch {
            // NB: SQLite's own words ("file is not a database") do not say which file; the person does.
            throw TodoStoreError("cannot use \(path): \(error.description)")
        }
        self.connection = Mutex(connection)
    }

    /// `PRAGMA quick_check`: a damaged file is refused at start rather than served as empty or wrong rows.
    private static func check(_ connection: SQLiteConnection) throws(TodoStoreError) {
        let rows = try connection.query("PRAGMA quick_check")
        let first = rows.first?.first?.text ?? "no answer"
        guard first == "ok" else { throw TodoStoreError("the file is damaged (quick_check: \(first))") }
    }

    /// Creates the table and the seed row on a fresh file, in one transaction.
    private static func migrate(_ connection: SQLiteConnection) throws(TodoStoreError) {
        let version = try connection.query("PRAGMA user_version").first?.first?.integer ?? 0
        guard version < schemaVersion else { return }
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS todos (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    title TEXT NOT NULL,
                    completed INTEGER NOT NULL DEFAULT 0
                );
                INSERT INTO todos (title, completed) VALUES ('Buy Milk', 0);
                PRAGMA user_version = \(schemaVersion);
                COMMIT;
                """)
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Every todo, ordered by id.
    package func all() throws(TodoStoreError) -> [Todo] {
        try connection.withLock { connection throws(TodoStoreError) in
            try connection.query("SELECT id, title, completed FROM todos ORDER BY id").map(Self.todo)
        }
    }

    /// Inserts a todo and commits it; the id is new.
    package func insert(title: String, completed: Bool) throws(TodoStoreError) -> Todo {
        try writing { connection throws(TodoStoreError) in
            try connection.query(
                "INSERT INTO todos (title, completed) VALUES (?, ?)", [.text(title), .integer(completed ? 1 : 0)])
            return Todo(id: Int(connection.lastInsertRowID), title: title, completed: completed)
        }
    }

    /// Replaces title and completion of `todo.id` and commits; `false` when there is no such todo.
    package func update(_ todo: Todo) throws(TodoStoreError) -> Bool {
        try writing { connection throws(TodoStoreError) in
            try connection.query(
                "UPDATE todos SET title = ?, completed = ? WHERE id = ?",
                [.text(todo.title), .integer(todo.completed ? 1 : 0), .integer(Int64(todo.id))])
            return connection.changes > 0
        }
    }

    /// Deletes `id` and commits; `false` when there is no such todo.
    package func delete(id: Int) throws(TodoStoreError) -> Bool {
        try writing { connection throws(TodoStoreError) in
            try connection.query("DELETE FROM todos WHERE id = ?", [.integer(Int64(id))])
            return connection.changes > 0
        }
    }

    /// Runs a write under the lock, checking that the data file is still the one opened, before (nothing
    /// is written into a file that is gone) and after (a file deleted meanwhile got a commit nobody will read:
    /// the caller is told it failed, so it never answers 2xx for it).
    private func writing<T>(_ body: (SQLiteConnection) throws(TodoStoreError) -> T) throws(TodoStoreError) -> T {
        try connection.withLock { connection throws(TodoStoreError) in
            try file.check()
            let result = try body(connection)
            try file.check()
            return result
        }
    }

    private static func todo(_ row: [SQLiteValue]) -> Todo {
        Todo(id: Int(row[0].integer ?? 0), title: row[1].text ?? "", completed: (row[2].integer ?? 0) != 0)
    }
}
