package import Domain
import Synchronization

/// The journal of a user's data file (`db.json.livestate` beside `db.json`, or `--data PATH`): the file's
/// resources and items as the server last committed them, and the entry of every change, in one SQLite
/// file (WAL, `synchronous=FULL`: a commit that returned is on disk and survives `kill -9`).
///
/// - `livestate_doc_resources`: each resource's name, kind and place in the file.
/// - `livestate_docs`: each item's compact JSON under its resource and id text, with its place in the
///   collection (the singular resource's object has the id text `""`).
/// - `livestate_doc_entries`: one row per committed change (the item after it, or NULL for a delete); its
///   `seq` is commit order and the event id's base. The newest `retention` are kept.
/// - `livestate_doc_file`: the entry the JSON file last showed and a hash of the file's bytes then, so a
///   start or a watch tells a person's edit from the server's own write, and which acknowledged entries
///   the file does not show yet (they are put back on top of it).
///
/// One connection behind a `Mutex`, as `SQLiteTodoStore`; one server per file (`SQLiteFileGuard`).
///
/// ```swift
/// let journal = try SQLiteDocumentJournal(path: "db.json.livestate")
/// let seqs = try journal.commit([DocumentWrite(resource: "posts", key: "1", position: 1, body: #"{"id":1}"#)])
/// ```
package final class SQLiteDocumentJournal: Sendable {
    private let connection: Mutex<SQLiteConnection>
    private let file: SQLiteFileGuard
    private let retention: Int64
    /// The journal id this run took at start: every entry it writes is above it.
    package let startSeq: Int64

    /// Opens or creates the journal at `path` (`:memory:` keeps nothing on disk), keeping the newest
    /// `retention` entries; a file another server holds, or that is not an SQLite file, throws.
    package init(path: String, retention: Int = 100_000) throws(TodoStoreError) {
        file = try SQLiteFileGuard(path: path)
        self.retention = Int64(max(1, retention))
        let connection = try SQLiteConnection(path: path)
        do throws(TodoStoreError) {
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            let check = try connection.query("PRAGMA quick_check").first?.first?.text ?? "no answer"
            guard check == "ok" else { throw TodoStoreError("the file is damaged (quick_check: \(check))") }
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS livestate_doc_resources(
                    name TEXT PRIMARY KEY, position INTEGER NOT NULL, kind TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS livestate_docs(
                    resource TEXT NOT NULL, key TEXT NOT NULL, position INTEGER NOT NULL, body TEXT NOT NULL,
                    PRIMARY KEY (resource, key)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS livestate_doc_entries(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, key TEXT NOT NULL, body TEXT);
                CREATE TABLE IF NOT EXISTS livestate_doc_file(
                    id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
                """)
            // NB: a run's events that are not entries are numbered after this id, so it is taken as an entry.
            try connection.execute("BEGIN IMMEDIATE")
            try connection.query(
                "INSERT INTO livestate_doc_entries(resource, key, body) VALUES ('', '', NULL)")
            startSeq = connection.lastInsertRowID
            try connection.execute("COMMIT")
        } catch {
            throw TodoStoreError("cannot use \(path): \(error.description)")
        }
        self.connection = Mutex(connection)
    }

    /// What the journal holds, or nil when no file was ever loaded into it.
    package func load() throws(TodoStoreError) -> DocumentJournalState? {
        try connection.withLock { connection throws(TodoStoreError) -> DocumentJournalState? in
            let resources = try connection.query(
                "SELECT name, kind FROM livestate_doc_resources ORDER BY position")
            guard !resources.isEmpty else { return nil }
            var records: [DocumentResourceRecord] = []
            for row in resources {
                guard let name = row[0].text, let kind = row[1].text else { continue }
                let documents = try connection.query(
                    "SELECT key, position, body FROM livestate_docs WHERE resource = ? ORDER BY position",
                    [.text(name)]
                ).compactMap { row -> StoredRow? in
                    guard let key = row[0].text, let position = row[1].integer, let body = row[2].text else {
                        return nil
                    }
                    return StoredRow(key: key, position: position, body: body)
                }
                records.append(DocumentResourceRecord(name: name, kind: kind, documents: documents))
            }
            let fileRow = try connection.query("SELECT seq, hash FROM livestate_doc_file WHERE id = 1").first
            return DocumentJournalState(
                resources: records, fileSeq: fileRow?[0].integer ?? 0, fileHash: fileRow?[1].text ?? "")
        }
    }

    /// Replaces everything with `resources` (the file's content), marking the file as showing it: the
    /// first start on a file, one transaction.
    package func seed(_ resources: [DocumentResourceRecord], fileHash: String) throws(TodoStoreError) {
        try transaction { connection throws(TodoStoreError) in
            try connection.execute("DELETE FROM livestate_doc_resources; DELETE FROM livestate_docs;")
            for (index, resource) in resources.enumerated() {
                try connection.query(
                    "INSERT INTO livestate_doc_resources(name, position, kind) VALUES (?, ?, ?)",
                    [.text(resource.name), .integer(Int64(index)), .text(resource.kind)])
                for document in resource.documents {
                    try connection.query(
                        "INSERT INTO livestate_docs(resource, key, position, body) VALUES (?, ?, ?, ?)",
                        [.text(resource.name), .text(document.key), .integer(document.position), .text(document.body)])
                }
            }
            try Self.markFile(connection, seq: startSeq, hash: fileHash)
        }
    }

    /// Commits `writes` and their entries in one transaction (one disk flush for all of them); answers each
    /// write's journal id, in order. Nothing of them is kept when it throws.
    package func commit(_ writes: [DocumentWrite]) throws(TodoStoreError) -> [Int64] {
        try file.check()
        return try transaction { connection throws(TodoStoreError) -> [Int64] in
            var seqs: [Int64] = []
            seqs.reserveCapacity(writes.count)
            for write in writes {
                if let body = write.body {
                    try connection.query(
                        """
                        INSERT INTO livestate_docs(resource, key, position, body) VALUES (?, ?, ?, ?)
                        ON CONFLICT (resource, key) DO UPDATE SET body = excluded.body
                        """, [.text(write.resource), .text(write.key), .integer(write.position), .text(body)])
                } else {
                    try connection.query(
                        "DELETE FROM livestate_docs WHERE resource = ? AND key = ?",
                        [.text(write.resource), .text(write.key)])
                }
                try connection.query(
                    "INSERT INTO livestate_doc_entries(resource, key, body) VALUES (?, ?, ?)",
                    [.text(write.resource), .text(write.key), write.body.map { .text($0) } ?? .null])
                seqs.append(connection.lastInsertRowID)
            }
            if let last = seqs.last, last % 1024 == 0 {
                try connection.query("DELETE FROM livestate_doc_entries WHERE seq <= ?", [.integer(last - retention)])
            }
            return seqs
        }
    }

    /// Records that the JSON file shows every entry up to `seq` and that its bytes hash to `hash`.
    package func markFile(seq: Int64, hash: String) throws(TodoStoreError) {
        try transaction { connection throws(TodoStoreError) in try Self.markFile(connection, seq: seq, hash: hash) }
    }

    /// The entries after `seq` still held, oldest first (the acknowledged changes a file does not show yet).
    package func entries(after seq: Int64) throws(TodoStoreError) -> [DocumentEntryRecord] {
        try connection.withLock { connection throws(TodoStoreError) in
            try connection.query(
                "SELECT seq, resource, key, body FROM livestate_doc_entries WHERE seq > ? AND resource <> '' ORDER BY seq",
                [.integer(seq)]
            ).compactMap { row in
                guard let seq = row[0].integer, let resource = row[1].text, let key = row[2].text else { return nil }
                return DocumentEntryRecord(seq: seq, resource: resource, key: key, body: row[3].text)
            }
        }
    }

    /// Copies the WAL into the file (a clean stop leaves one file).
    package func checkpoint() {
        connection.withLock { connection in _ = try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    private static func markFile(_ connection: SQLiteConnection, seq: Int64, hash: String) throws(TodoStoreError) {
        try connection.query(
            "INSERT INTO livestate_doc_file(id, seq, hash) VALUES (1, ?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
            [.integer(seq), .text(hash)])
    }

    private func transaction<T>(_ body: (SQLiteConnection) throws(TodoStoreError) -> T) throws(TodoStoreError) -> T {
        try connection.withLock { connection throws(TodoStoreError) -> T in
            try connection.execute("BEGIN IMMEDIATE")
            do throws(TodoStoreError) {
                let result = try body(connection)
                try connection.execute("COMMIT")
                return result
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}

/// What a journal held at start: the resources in the file's order and the file's last mark.
package struct DocumentJournalState: Sendable, Equatable {
    /// The resources, in order.
    package var resources: [DocumentResourceRecord]
    /// The entry the JSON file last showed.
    package var fileSeq: Int64
    /// The hash of the file's bytes then.
    package var fileHash: String
}

/// One resource as stored: its name, kind (`collection` or `singular`) and items.
package struct DocumentResourceRecord: Sendable, Equatable {
    /// The name.
    package var name: String
    /// `collection` or `singular`.
    package var kind: String
    /// The items in order.
    package var documents: [StoredRow]

    /// A record of `documents` under `name`.
    package init(name: String, kind: String, documents: [StoredRow]) {
        self.name = name
        self.kind = kind
        self.documents = documents
    }
}

/// One item as stored: its id text, place and compact JSON.
package struct StoredRow: Sendable, Equatable {
    /// The id text (`""` for a singular resource's object).
    package var key: String
    /// Its place in the collection.
    package var position: Int64
    /// The item's compact JSON.
    package var body: String

    /// A row.
    package init(key: String, position: Int64, body: String) {
        self.key = key
        self.position = position
        self.body = body
    }
}

/// One change to commit: the item `key` of `resource` becomes `body` (nil: deleted).
package struct DocumentWrite: Sendable {
    /// The resource.
    package var resource: String
    /// The item's id text (`""` for a singular resource).
    package var key: String
    /// Its place in the collection (kept for an item that exists).
    package var position: Int64
    /// The item's compact JSON after the change; nil deletes it.
    package var body: String?

    /// A write.
    package init(resource: String, key: String, position: Int64, body: String?) {
        self.resource = resource
        self.key = key
        self.position = position
        self.body = body
    }
}

/// One entry as stored.
package struct DocumentEntryRecord: Sendable {
    /// Its journal id.
    package var seq: Int64
    /// The resource.
    package var resource: String
    /// The item's id text.
    package var key: String
    /// The item after the change; nil for a delete.
    package var body: String?
}
