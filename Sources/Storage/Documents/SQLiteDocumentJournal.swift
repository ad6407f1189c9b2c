import Domain
import Synchronization

/// The journal of a user's data file (`db.json.livestate` beside `db.json`, or `--data PATH`): the entry of
/// every change and the file's last write-back, in one SQLite file (WAL, `synchronous=FULL`: a commit that
/// returned is on disk and survives `kill -9`).
///
/// - `livestate_entries` (`SQLiteEntries`, the seeds' table too): one row per committed change: the
///   resource, the item's id text and the item after it (NULL for a delete); its `seq` is commit order and
///   the event id's base.
/// - `livestate_doc_file`: the entry the JSON file last showed, a hash of the file's bytes then, and the
///   newest entry it may show (`FileMark`).
/// - the saved events of a clean stop (`+Events`) and the checkpoints (`+Checkpoints`).
///
/// The tables are made and brought up to date at start by the steps of `migrations` (+Schema).
///
/// The file and the entries after its mark are the whole state: a start reads the file and puts those
/// entries back on top (after `kill -9`, the changes the file did not show yet; after a person's edit while
/// no server ran, the changes the edit could not know). So the journal holds no copy of the items, and a
/// write costs one row. Entries the file does not show yet are never deleted; of the others, the newest
/// `retention` are kept.
///
/// One connection behind a `Mutex`; one server per file (`SQLiteFileGuard`).
///
/// ```swift
/// let journal = try SQLiteDocumentJournal(path: "db.json.livestate")
/// let seqs = try journal.commit([JournalWrite(changes: [JournalChange(collection: "posts", id: "1", document: "{}")])])
/// ```
package final class SQLiteDocumentJournal: Sendable {
    let connection: Mutex<SQLiteConnection>
    private let file: SQLiteFileGuard
    /// How many of the newest entries are kept.
    let retention: Int64
    /// The journal id this run took at start: every entry it writes is above it.
    package let startSeq: Int64

    /// Where the items are kept: in the data file, or in the journal (`+Items`).
    let holding: Holding

    /// Opens or creates the journal at `path` (`:memory:` keeps nothing on disk), keeping the newest
    /// `retention` entries, and the items in `holding`; a file another server holds, that is not an SQLite
    /// file, or that is the other kind of store (a data file's journal, the seeds' file), throws.
    package init(path: String, retention: Int = 100_000, holding: Holding = .dataFile) throws(JournalError) {
        file = try SQLiteFileGuard(path: path, watchesContent: true)
        self.retention = Int64(max(1, retention))
        self.holding = holding
        let connection = try SQLiteConnection(path: path)
        do throws(JournalError) {
            // NB: the exclusive locking mode before WAL mode is first entered makes SQLite keep the WAL's index
            // in this process's memory instead of a shared `-shm` file it maps: a `-shm` truncated under the
            // server would make the next write fault (SIGBUS). One server per file holds anyway
            // (`SQLiteFileGuard`); the file cannot be read by another program until the server stops.
            try connection.execute(
                "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
            let check = try connection.query("PRAGMA quick_check").first?.first?.text ?? "no answer"
            guard check == "ok" else { throw JournalError.failed("the file is damaged (quick_check: \(check))") }
            try Self.migrate(connection, holding: holding)
            startSeq = try SQLiteEntries.takeStartSeq(connection)
            try file.record()
        } catch {
            throw error.explained(by: "cannot use \(path)")
        }
        self.connection = Mutex(connection)
    }

    /// What the JSON file showed when it was last written or read.
    package struct FileMark: Sendable, Equatable {
        /// The file shows every entry up to this one.
        package var seq: Int64
        /// The hash of the file's bytes.
        package var hash: String

        /// The mark of a file that shows every entry up to `seq` and hashes to `hash`.
        package init(seq: Int64, hash: String) {
            self.seq = seq
            self.hash = hash
        }
    }

    /// The file's last mark; nil before the first start.
    package func fileMark() throws(JournalError) -> FileMark? {
        try withConnection { connection throws(JournalError) -> FileMark? in
            let row = try connection.query("SELECT seq, hash FROM livestate_doc_file WHERE id = 1").first
            guard let row, let seq = row[0].integer, let hash = row[1].text else { return nil }
            return FileMark(seq: seq, hash: hash)
        }
    }

    /// Commits the changes of `writes` as entries in one transaction (one disk flush for all of them), each
    /// write's key kept with its first entry; answers each change's journal id, in order. Nothing of them is
    /// kept when it throws (also when a key is taken: the caller looks keys up first, `keyed`).
    ///
    /// The journal's file is checked before (a file changed under the server since its last write refuses
    /// it) and after (a file that shrank or was replaced meanwhile: the commit is not answered as kept).
    package func commit(_ writes: [JournalWrite]) throws(JournalError) -> [Int64] {
        try transaction { connection throws(JournalError) -> [Int64] in
            var seqs: [Int64] = []
            seqs.reserveCapacity(writes.count)
            for write in writes {
                for (index, change) in write.changes.enumerated() {
                    let key = index == 0 ? write.key : nil
                    switch holding {
                    case .dataFile:
                        let before = index < write.itemsBefore.count ? write.itemsBefore[index] : nil
                        seqs.append(try SQLiteEntries.insert(change, before: before, key: key, connection))
                    case .items: seqs.append(try Self.commitHeld(change, key: key, connection))
                    }
                }
            }
            if holding == .items, let last = seqs.last {
                try Self.deleteHeldEntries(upTo: last - retention, connection)
            } else if let last = seqs.last, last % 1024 == 0 {
                try connection.query(
                    """
                    DELETE FROM livestate_entries WHERE seq <= ?
                    AND seq <= coalesce((SELECT seq FROM livestate_doc_file WHERE id = 1), 0)
                    """, [.integer(last - retention)])
            }
            return seqs
        }
    }

    /// Records that the JSON file shows every entry up to `seq`, and that its bytes hash to `hash` (the
    /// pending mark, `markPendingFile`, is then dropped).
    ///
    /// NB: committed without a disk flush of its own (`withoutFlush`). A power cut may lose it; the older
    /// mark then makes the next start put back entries the file already shows, which gives the same items.
    package func markFile(seq: Int64, hash: String) throws(JournalError) {
        try withoutFlush { connection throws(JournalError) in
            try connection.query(
                "INSERT INTO livestate_doc_file(id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET"
                    + " seq = excluded.seq, hash = excluded.hash, pending_seq = NULL, pending_hash = NULL",
                [.integer(seq), .text(hash)])
        }
    }

    /// Records, before the file is renamed into place, that the bytes about to replace it hash to `hash` and
    /// show every entry up to `seq`: a start that finds the file so (the server died between the rename and
    /// `markFile`) takes this mark, where it would otherwise take the file as edited by a person while no
    /// server ran (`pendingFileMark`). A file with no mark yet gets one at entry 0 that no bytes hash to.
    ///
    /// NB: committed without a disk flush of its own, as `markFile` is: `kill -9` keeps it (it is in the WAL).
    package func markPendingFile(seq: Int64, hash: String) throws(JournalError) {
        try withoutFlush { connection throws(JournalError) in
            try connection.query(
                "INSERT INTO livestate_doc_file(id, seq, hash, pending_seq, pending_hash) VALUES (1, 0, '', ?, ?)"
                    + " ON CONFLICT (id) DO UPDATE SET pending_seq = excluded.pending_seq,"
                    + " pending_hash = excluded.pending_hash",
                [.integer(seq), .text(hash)])
        }
    }

    /// The mark of the file a write-back was about to rename into place when the server last stopped, if it
    /// stopped before marking it (`markPendingFile`); nil otherwise.
    package func pendingFileMark() throws(JournalError) -> FileMark? {
        try withConnection { connection throws(JournalError) -> FileMark? in
            let row = try connection.query(
                "SELECT pending_seq, pending_hash FROM livestate_doc_file WHERE id = 1"
            ).first
            guard let row, let seq = row[0].integer, let hash = row[1].text else { return nil }
            return FileMark(seq: seq, hash: hash)
        }
    }

    /// Runs `body` in a transaction committed without a disk flush of its own (`synchronous=NORMAL` for this
    /// one transaction), so the write-back never holds the connection, which the entries' commits need,
    /// through a flush: the next commit's flush makes it durable too (the WAL is one file, written in order),
    /// and `kill -9` keeps it (it is in the WAL).
    private func withoutFlush(_ body: (SQLiteConnection) throws(JournalError) -> Void) throws(JournalError) {
        try withConnection { connection throws(JournalError) in
            try connection.execute("PRAGMA synchronous=NORMAL")
            var failure: JournalError?
            do throws(JournalError) {
                try connection.execute("BEGIN IMMEDIATE")
                try body(connection)
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                failure = error
            }
            // The entries' commits flush again before anything else runs on the connection.
            try connection.execute("PRAGMA synchronous=FULL")
            if let failure { throw failure }
        }
    }

    /// The entries after `seq` still held, oldest first (the acknowledged changes a file does not show yet):
    /// at most `limit` of them (nil: all).
    package func entries(after seq: Int64, limit: Int? = nil) throws(JournalError) -> [JournalEntry] {
        try withConnection { connection throws(JournalError) in
            try SQLiteEntries.entries(after: seq, limit: limit, connection).map(\.entry)
        }
    }

    /// The writes committed under any of `keys` (and not deleted by retention since): their first entries,
    /// by key.
    package func keyed(_ keys: [String]) throws(JournalError) -> [String: KeyedEntry] {
        guard !keys.isEmpty else { return [:] }
        return try withConnection { connection throws(JournalError) in
            var found: [String: KeyedEntry] = [:]
            for key in Set(keys) {
                guard let row = try SQLiteEntries.entry(key: key, connection) else { continue }
                found[key] = KeyedEntry(entry: row.entry, request: row.request ?? "")
            }
            return found
        }
    }

    /// Copies the WAL into the file (a clean stop leaves one file).
    package func checkpoint() {
        connection.withLock { connection in
            guard (try? file.check()) != nil else { return }  // a file changed under the server is left as it is
            _ = try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            file.recordOwnTruncation()
        }
    }

    /// Runs `body` on the connection with the journal's file checked before it (`SQLiteFileGuard.check`: not
    /// changed since this server's last use) and after it (`record`: not shrunk or replaced meanwhile).
    /// Every use of the connection but the stop's checkpoint goes through here, so the guard knows each change
    /// this server made to the file.
    func withConnection<T>(_ body: (SQLiteConnection) throws(JournalError) -> T) throws(JournalError) -> T {
        try connection.withLock { connection throws(JournalError) -> T in
            try file.check()
            // NB: recorded after a failure too: a rolled-back transaction may have written to the WAL.
            do throws(JournalError) {
                let result = try body(connection)
                try file.record()
                return result
            } catch {
                _ = try? file.record()
                throw error
            }
        }
    }

    /// Brings the file to the last step of its kind, refusing a file of the other kind: the two would share
    /// one table of entries.
    private static func migrate(_ connection: SQLiteConnection, holding: Holding) throws(JournalError) {
        let tables = Set(
            try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.first?.text })
        switch holding {
        case .dataFile:
            guard tables.isDisjoint(with: ["todos", "livestate_items"]) else {
                throw JournalError.failed(
                    "the file holds the seeds' data; a data file's journal needs a file of its own")
            }
            try migrations.migrate(connection)
        case .items:
            guard !tables.contains("livestate_doc_file") else {
                throw JournalError.failed(
                    "the file is a data file's journal; the seeds' data needs a file of its own")
            }
            try storeMigrations().migrate(connection)
        }
    }

    private func transaction<T>(_ body: (SQLiteConnection) throws(JournalError) -> T) throws(JournalError) -> T {
        try withConnection { connection throws(JournalError) -> T in
            try connection.execute("BEGIN IMMEDIATE")
            do throws(JournalError) {
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
