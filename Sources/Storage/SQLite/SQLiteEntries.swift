import Domain

/// The journal's entries in an SQLite file, one table for the seeds' file (`livestate.sqlite`) and a data
/// file's journal (`db.json.livestate`) alike: one row per committed change, as `JournalChange` says it.
///
/// `livestate_entries`:
/// - `seq`: the entry's id (`AUTOINCREMENT`: commit order, never reused; event id `seq × 65536`);
/// - `resource`, `key`, `body`: the collection, the item's id text (`""` for a resource as a whole) and the
///   document after the change (NULL: deleted);
/// - `before`: the item before the change, where the state beside the journal cannot give it back (the
///   seeds' todos: a restart rebuilds the lists of its earlier events backwards from it); NULL otherwise;
/// - `write_key`, `write_request`: the `Idempotency-Key` the write was committed under and its request
///   (`POST /posts`; the resource for a seed's input), unique, kept as long as the entry.
///
/// A row of `resource` `""` marks the id a run took at start (`takeStartSeq`): it is no change, and no read
/// answers it. Every function runs on a connection its caller holds (inside its transaction when it writes).
///
/// ```swift
/// let seq = try SQLiteEntries.insert(JournalChange(collection: "posts", id: "1", document: "{}"), connection)
/// let after = try SQLiteEntries.entries(after: seq - 1, connection)   // that change
/// ```
enum SQLiteEntries {
    /// One stored row: the entry, the item before it and the key it was committed under.
    struct Row: Sendable, Equatable {
        /// The entry.
        var entry: JournalEntry
        /// The item before the change, as JSON; nil when not kept.
        var before: String?
        /// The request its key was sent with; nil without a key.
        var request: String?
    }

    /// Creates the table and its key index in a file that has neither.
    static func create(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS livestate_entries(
                seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, key TEXT NOT NULL, body TEXT,
                before TEXT, write_key TEXT, write_request TEXT);
            CREATE UNIQUE INDEX IF NOT EXISTS livestate_entries_write_key ON livestate_entries(write_key)
                WHERE write_key IS NOT NULL;
            """)
    }

    /// Makes the next entry's id come after `seq` (a file whose ids must continue an older numbering).
    static func continueAfter(_ seq: Int64, _ connection: SQLiteConnection) throws(JournalError) {
        try connection.query("DELETE FROM sqlite_sequence WHERE name = 'livestate_entries'")
        try connection.query(
            "INSERT INTO sqlite_sequence(name, seq) VALUES ('livestate_entries', ?)", [.integer(seq)])
    }

    /// Takes an id for this run: every entry it writes is above it, and the events it numbers itself (which
    /// are no entries) come after it, in a block no other run used. Commits on its own.
    static func takeStartSeq(_ connection: SQLiteConnection) throws(JournalError) -> Int64 {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(JournalError) {
            try connection.query("INSERT INTO livestate_entries(resource, key, body) VALUES ('', '', NULL)")
            let seq = connection.lastInsertRowID
            try connection.execute("COMMIT")
            return seq
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Inserts `change` (with the item `before` it, and under `key`) and answers its id.
    static func insert(
        _ change: JournalChange, before: String? = nil, key: WriteKey? = nil, _ connection: SQLiteConnection
    ) throws(JournalError) -> Int64 {
        try connection.query(
            """
            INSERT INTO livestate_entries(resource, key, body, before, write_key, write_request)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(change.collection), .text(change.key), change.document.map { .text($0) } ?? .null,
                before.map { .text($0) } ?? .null, key.map { .text($0.key) } ?? .null,
                key.map { .text($0.request) } ?? .null,
            ])
        return connection.lastInsertRowID
    }

    /// The entries after `seq`, oldest first: at most `limit` of them (nil: all).
    static func entries(after seq: Int64, limit: Int? = nil, _ connection: SQLiteConnection) throws(JournalError)
        -> [Row]
    {
        // NB: SQLite reads a negative limit as none.
        try rows(
            "SELECT \(columns) FROM livestate_entries WHERE seq > ? AND resource <> '' ORDER BY seq LIMIT ?",
            [.integer(seq), .integer(Int64(limit ?? -1))], connection)
    }

    /// The entry committed under `key`; nil when there is none (any more: keys go with their entries).
    static func entry(key: String, _ connection: SQLiteConnection) throws(JournalError) -> Row? {
        try rows("SELECT \(columns) FROM livestate_entries WHERE write_key = ?", [.text(key)], connection).first
    }

    /// The newest `limit` entries of `resource`, newest first.
    static func newest(
        of resource: String, limit: Int, _ connection: SQLiteConnection
    ) throws(JournalError) -> [Row] {
        try rows(
            "SELECT \(columns) FROM livestate_entries WHERE resource = ? ORDER BY seq DESC LIMIT ?",
            [.text(resource), .integer(Int64(max(0, limit)))], connection)
    }

    /// The newest entries of every resource, newest first: at most `limit`, and no more than `bytes` of
    /// documents (the newest always). The sizes are read first, so a large document beyond the bound (a
    /// downloaded image) is never loaded.
    static func recent(limit: Int, bytes: Int, _ connection: SQLiteConnection) throws(JournalError) -> [Row] {
        let sizes = try connection.query(
            """
            SELECT seq, coalesce(length(CAST(body AS BLOB)), 0) + coalesce(length(CAST(before AS BLOB)), 0)
            FROM livestate_entries WHERE resource <> '' ORDER BY seq DESC LIMIT ?
            """, [.integer(Int64(max(0, limit)))])
        var oldest: Int64?
        var total: Int64 = 0
        for row in sizes {
            guard let seq = row[0].integer else { break }
            total += row[1].integer ?? 0
            guard oldest == nil || total <= Int64(bytes) else { break }
            oldest = seq
        }
        guard let oldest else { return [] }
        return try rows(
            "SELECT \(columns) FROM livestate_entries WHERE seq >= ? AND resource <> '' ORDER BY seq DESC",
            [.integer(oldest)], connection)
    }

    private static let columns = "seq, resource, key, body, before, write_request"

    private static func rows(
        _ sql: String, _ bindings: [SQLiteValue], _ connection: SQLiteConnection
    ) throws(JournalError) -> [Row] {
        try connection.query(sql, bindings).compactMap { row in
            guard let seq = row[0].integer, let resource = row[1].text, let key = row[2].text else { return nil }
            let change = JournalChange(resource: resource, key: key, body: row[3].text)
            return Row(entry: JournalEntry(seq: seq, change: change), before: row[4].text, request: row[5].text)
        }
    }
}
