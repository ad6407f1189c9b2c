package import Dispatch
package import Domain
import Foundation
package import LibEvent
import Support
import Synchronization

/// A data file's resources in a PostgreSQL database that several servers share (`--data postgres://…` with a
/// `FILE.json`): the database is the truth, the file only fills an empty database once.
///
/// - `livestate_doc_resources`: the resources (name, kind, the file's order).
/// - `livestate_doc_items`: the current items of every resource (`place` keeps the collection's order), so a
///   start reads the state in one query; a singular resource is its row with key `''`. Each entry keeps the
///   item before it with its place (`before`), so a start can take the items back before its newest entries
///   and make their events again (`DocumentRewind`).
/// - `livestate_entries` (`PostgresEntries`, the seeds' table too): one row per committed change (`seq`:
///   commit order, the event id's base; body NULL for a delete), which the other servers read after a
///   `NOTIFY livestate_documents`; a write's first entry keeps its `Idempotency-Key` and request
///   (`write_key`, unique, and `write_request`), so the same request sent again to any server is answered
///   from it. A database of an older server kept them in `livestate_doc_entries`, renamed at start. A
///   database the seeds use is refused (not retried).
/// - `livestate_doc_seed`: one row once a file filled the database.
/// - `livestate_doc_pruned`: where retention's deletions end: the entries below `below` may be gone. Every
///   60 s one server deletes all but the newest `retention` entries; a server that finds it missed deleted
///   entries (it was away that long) reads the items as they are instead (`current`).
///
/// Items are text, not `jsonb`: text keeps each item byte-exact (member order, number spelling) as the file
/// and the clients wrote it; `jsonb` would reorder members and respell numbers, and the server never queries
/// inside an item in SQL.
///
/// Every writer (a batch, a seed, a start's marker) holds the advisory lock `writeLock` from before it takes
/// its ids to its commit, so ids follow commit order: a server that read the entry `n` has every entry below
/// it, and a batch planned under the lock (after reading what others committed) sees the state it changes —
/// two servers never give one new id twice.
///
/// Its one connection runs on a loop of its own and reconnects with backoff; the calls block the calling
/// thread (the store's commit queue, or the start), never the loop.
///
/// ```swift
/// let journal = PostgresDocumentJournal(uri: "postgresql://127.0.0.1/livestate")
/// let start = journal.start(seeding: resources, source: "db.json")   // blocks until the database answers
/// journal.follow { store.catchUp() }
/// ```
package final class PostgresDocumentJournal: DocumentJournal, @unchecked Sendable {
    // NB: @unchecked because every var is touched on `loop` only: the calls hop there first.

    /// The advisory lock every document writer holds until its commit (the todos' journal uses 7428001–2).
    static let writeLock = 7_428_010
    /// The channel every batch notifies with its last entry's id.
    static let channel = "livestate_documents"
    /// The part of a batch's time kept for learning the outcome of a commit whose answer was lost.
    static let settleTime = DispatchTimeInterval.milliseconds(1500)

    private let uri: String
    private let loop: EventLoop
    private var connection: PostgresConnection?
    private var connecting = false
    private var backoff = 0.1
    private var outageSince: Date?
    private var stopped = false
    private var onCommitted: (@Sendable () -> Void)?
    private var followTimer: LoopTimer?
    private var pruneTimer: LoopTimer?
    /// How many of the newest entries retention keeps (`--journal-retention`).
    private let retention: Int64

    /// A journal of the database at `uri` on a loop of its own that keeps the newest `retention` entries;
    /// nothing is sent until `start`.
    package init(uri: String, retention: Int = 100_000) throws(LibEventError) {
        self.uri = uri
        self.retention = Int64(max(1, retention))
        loop = try EventLoop(name: "livestate-postgres-documents")
        loop.run()
    }

    // MARK: Start

    /// What the database holds at start.
    package struct Start: Sendable {
        /// The journal id this run took (every entry it applies is above it).
        package var seq: Int64
        /// Whether this start's file filled the database.
        package var seeded: Bool
        /// The resources, in the file's order, with their items' id texts, JSON and places.
        package var resources: [DocumentRows]
        /// The newest entries (within the `recent` count and bytes asked for), newest first, each with its item
        /// before it (`DocumentRewind` takes the resources back before them).
        package var recent: [JournalRow]
    }

    /// Connects (retrying with backoff while the database is unreachable, and saying so), creates the schema,
    /// fills an empty database with the resources `seeding` answers (called only then, in one transaction
    /// under `writeLock`: of servers starting together, one seeds and the others read its rows), and reads
    /// the state with its newest entries: at most `recent.count`, and no more than `recent.bytes` of items and
    /// items before them (the newest one always). Blocks until it can answer; what `seeding` throws is thrown,
    /// and so is a database the seeds use (`PostgresError`, `.refused`).
    package func start(
        source: String, recent: (count: Int, bytes: Int) = (0, 0), seeding: () throws -> [DocumentRows]
    ) throws -> Start {
        while true {
            let deadline = DispatchTime.now() + 600
            waitForConnection()
            let schema = script(Self.schema, until: deadline)
            if case .failure(let error) = schema, error.sqlState == PostgresEntries.otherDataSetState {
                // NB: not retried: the seeds' servers keep using the database.
                throw PostgresError(
                    .refused,
                    "the database holds the seeds' todos and entries; a data file needs a database of its own",
                    sqlState: error.sqlState)
            }
            if case .failure(let error) = schema {
                Log.error("postgres: the data file's schema cannot be set up (\(error)); retrying in 1 s")
                Thread.sleep(forTimeInterval: 1)
                continue
            }
            do {
                return try seedAndRead(seeding, source: source, recent: recent, until: deadline)
            } catch let error as PostgresError {
                Log.error("postgres: the data file's state cannot be read (\(error)); retrying in 1 s")
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    private func seedAndRead(
        _ seeding: () throws -> [DocumentRows], source: String, recent: (count: Int, bytes: Int),
        until deadline: DispatchTime
    ) throws -> Start {
        let session = try begin(until: deadline)
        do {
            // NB: a large file may take longer than the connection's 3 s per statement, and its reading (between
            // the statements) longer than the 4 s a session may stay idle in a transaction.
            try step(session, "SET LOCAL statement_timeout = 0", until: deadline)
            try step(session, "SET LOCAL idle_in_transaction_session_timeout = 0", until: deadline)
            try step(session, "SELECT pg_advisory_xact_lock(\(Self.writeLock))", until: deadline)
            let seeded = try step(session, "SELECT count(*) FROM livestate_doc_seed", until: deadline).integer() == 0
            if seeded { try seed(seeding(), source: source, on: session, until: deadline) }
            // NB: a run's events that are not entries are numbered after this id, so it is taken as an entry.
            let marker = try step(
                session, "INSERT INTO livestate_entries (resource, key, body) VALUES ('', '', NULL) RETURNING seq",
                until: deadline)
            guard let seq = marker.integer() else { throw PostgresError(.refused, "no journal id was given") }
            let state = try readResources(session, until: deadline)
            let rows = try step(
                session, Self.newestEntries, [String(recent.count), String(recent.bytes)], until: deadline)
            let entries = rows.rows.indices.compactMap { index -> JournalRow? in
                guard let entry = PostgresEntries.entry(rows, index) else { return nil }
                return JournalRow(seq: entry.seq, change: entry.change, before: rows.rows[index][4])
            }
            try step(session, "COMMIT", until: deadline)
            return Start(seq: seq, seeded: seeded, resources: state, recent: entries)
        } catch {
            abandon(session)
            throw error
        }
    }

    /// The resources, in the file's order, with their items and places in their collection's order (in
    /// `session`'s transaction).
    private func readResources(_ session: PostgresConnection, until deadline: DispatchTime) throws(PostgresError)
        -> [DocumentRows]
    {
        let kinds = try step(
            session, "SELECT name, kind FROM livestate_doc_resources ORDER BY position", until: deadline)
        let items = try step(
            session, "SELECT resource, key, body, place FROM livestate_doc_items ORDER BY resource, place",
            until: deadline)
        var byName: [String: [(key: String, body: String)]] = [:]
        var places: [String: [Int64]] = [:]
        for (index, row) in items.rows.enumerated() {
            guard let resource = row[0], let key = row[1], let body = row[2], let place = items.integer(index, 3) else {
                continue
            }
            byName[resource, default: []].append((key, body))
            places[resource, default: []].append(place)
        }
        return kinds.rows.compactMap { row -> DocumentRows? in
            guard let name = row[0], let kind = row[1].flatMap(DocumentResource.Kind.init(rawValue:)) else {
                return nil
            }
            return DocumentRows(name: name, kind: kind, items: byName[name] ?? [], places: places[name] ?? [])
        }
    }

    /// Writes the file's resources and items (in chunks of a few MB) and the seed row, in `session`'s
    /// transaction. Seeded items take places below every entry's id, in the file's order.
    private func seed(
        _ resources: [DocumentRows], source: String, on session: PostgresConnection, until deadline: DispatchTime
    ) throws(PostgresError) {
        let kinds = resources.enumerated().map { [$1.name, $1.kind.rawValue, String($0)] }
        try step(
            session,
            """
            INSERT INTO livestate_doc_resources (name, kind, position)
            SELECT e->>0, e->>1, (e->>2)::int FROM json_array_elements($1::json) AS e
            """, [Self.json(kinds)], until: deadline)
        for resource in resources {
            var chunk: [BatchRow] = []
            var bytes = 0
            let count = resource.items.count
            for (index, item) in resource.items.enumerated() {
                chunk.append((resource.name, item.key, Int64(index - count), item.body, nil))
                bytes += item.body.utf8.count
                if bytes > 4 << 20 || chunk.count == 5000 || index == count - 1 {
                    try step(
                        session,
                        """
                        INSERT INTO livestate_doc_items (resource, key, place, body)
                        SELECT e->>0, e->>1, (e->>2)::bigint, (e->3)::text FROM json_array_elements($1::json) AS e
                        """, [Self.batch(chunk)], until: deadline)
                    chunk = []
                    bytes = 0
                }
            }
        }
        try step(session, "INSERT INTO livestate_doc_seed (source) VALUES ($1)", [source], until: deadline)
    }

    /// Calls `committed` (on the journal's loop) whenever another server may have committed entries: on
    /// each `NOTIFY`, after each reconnect (a notification sent meanwhile is lost), and every 2 s. Starts
    /// retention too: 5 s from now, then every 60 s.
    package func follow(_ committed: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            onCommitted = committed
            followTimer = loop.schedule(after: 2, repeating: 2) { [weak self] in self?.onCommitted?() }
            // NB: the statement blocks its caller until the loop answers: it runs off the loop.
            pruneTimer = loop.schedule(after: 5, repeating: 60) { [weak self] in
                guard let self else { return }
                DispatchQueue.global().async { self.prune() }
            }
            committed()
        }
    }

    /// Deletes all but the newest `retention` entries and records where the deletions end (one server at a
    /// time: the others skip their turn while one holds the lock).
    private func prune() {
        if case .failure(let error) = script(Self.pruneStatement(keep: retention), until: .now() + 10) {
            Log.warning("postgres: the data file's journal was not pruned (\(error)); trying again in 60 s")
        }
    }

    /// Stops reconnecting and closes the connection (shutdown).
    package func stop() {
        loop.execute { [self] in
            stopped = true
            followTimer?.cancel()
            followTimer = nil
            pruneTimer?.cancel()
            pruneTimer = nil
            onCommitted = nil
            connection?.close("shutting down")
            connection = nil
        }
        _ = loop.stop(waitingUntil: .now() + 2)
    }

    // MARK: DocumentJournal

    package var isShared: Bool { true }

    package func commitBatch(
        after seq: Int64, keys: [String], until deadline: DispatchTime,
        _ plan: (_ others: [JournalEntry], _ keyed: [String: KeyedEntry]) -> [JournalWrite]
    ) throws(JournalError) -> [Int64] {
        // NB: the commit is sent by this time, so that an answer lost with the connection can still be settled.
        let statements = deadline - Self.settleTime
        // NB: writes that waited their time behind a catch-up are refused here, not by closing a good connection.
        guard DispatchTime.now() < statements else { throw .unavailable("PostgreSQL did not take the change in time") }
        let session: PostgresConnection
        var seqs: [Int64] = []
        do throws(PostgresError) {
            session = try begin(until: statements)
        } catch {
            throw .unavailable("PostgreSQL is unreachable: \(error.message)")
        }
        var behind: Int64?
        do throws(PostgresError) {
            try step(session, "SELECT pg_advisory_xact_lock(\(Self.writeLock))", until: statements)
            let found = Self.records(try step(session, Self.entriesAfter, [String(seq), "100000"], until: statements))
            if let below = found.prunedBelow, seq + 1 < below {
                behind = below
                throw PostgresError(.refused, "entries this server has not applied were deleted")
            }
            // NB: under the lock too: a write sent again to another server meanwhile is answered from its entry.
            let keyed =
                keys.isEmpty
                ? [:] : Self.keyed(try step(session, Self.keyedEntries, [Self.json([keys])], until: statements))
            let writes = plan(found.entries, keyed)
            let count = writes.reduce(0) { $0 + $1.changes.count }
            guard count > 0 else {
                try step(session, "COMMIT", until: statements)
                return []
            }
            let taken = try step(
                session,
                "SELECT nextval(pg_get_serial_sequence('livestate_entries', 'seq')) FROM generate_series(1, $1::int)",
                [String(count)], until: statements)
            // NB: one session takes them under the lock: ascending, and no other writer's in between.
            seqs = taken.rows.indices.compactMap { taken.integer($0, 0) }.sorted()
            guard seqs.count == count else { throw PostgresError(.refused, "no journal ids were given") }
            var rows: [BatchRow] = []
            rows.reserveCapacity(count)
            for write in writes {
                for (index, change) in write.changes.enumerated() {
                    let key = index == 0 ? write.key : nil
                    rows.append((change.collection, change.key, seqs[rows.count], change.document, key))
                }
            }
            let batch = Self.batch(rows)
            try step(session, Self.logAndRemove, [batch], until: statements)
            try step(session, Self.keepAndNotify, [batch, Self.channel], until: statements)
        } catch {
            abandon(session)
            if let behind { throw .behind(prunedBelow: behind) }
            throw .unavailable("PostgreSQL did not take the change: \(error.message)")
        }
        switch wait(for: session, "COMMIT", until: statements) {
        case .success: return seqs
        case .failure(let error) where error.kind != .outcomeUnknown:
            abandon(session)
            throw .unavailable("PostgreSQL did not commit: \(error.message)")
        case .failure(let error):
            abandon(session)
            return try settle(seqs, after: error, until: deadline)
        }
    }

    package func committed(after seq: Int64, limit: Int) throws(JournalError) -> [JournalEntry] {
        switch wait(for: nil, Self.entriesAfter, [String(seq), String(limit)], until: .now() + 3) {
        case .success(let rows):
            let found = Self.records(rows)
            if let below = found.prunedBelow, seq + 1 < below { throw .behind(prunedBelow: below) }
            return found.entries
        case .failure(let error): throw .unavailable(error.message)
        }
    }

    package func current() throws(JournalError) -> (seq: Int64, resources: [DocumentRows]) {
        let deadline = DispatchTime.now() + 10
        do throws(PostgresError) {
            let session = try begin(until: deadline)
            do throws(PostgresError) {
                // NB: under the writers' lock: the items are those of the newest entry, and none is half written.
                try step(session, "SET LOCAL statement_timeout = 0", until: deadline)
                try step(session, "SELECT pg_advisory_xact_lock(\(Self.writeLock))", until: deadline)
                let newest = try step(
                    session, "SELECT coalesce(max(seq), 0) FROM livestate_entries", until: deadline)
                let resources = try readResources(session, until: deadline)
                try step(session, "COMMIT", until: deadline)
                return (newest.integer() ?? 0, resources)
            } catch {
                abandon(session)
                throw error
            }
        } catch {
            throw .unavailable("PostgreSQL did not answer with the items: \(error.message)")
        }
    }

    /// A commit whose answer was lost: once the writer lock is free (the session that sent it has ended) its
    /// first entry is there or not; when the database cannot say before `deadline`, the outcome stays unknown.
    private func settle(_ seqs: [Int64], after error: PostgresError, until deadline: DispatchTime)
        throws(JournalError) -> [Int64]
    {
        Log.error("postgres: the answer to a commit of \(seqs.count) change(s) was lost (\(error)); settling it")
        while DispatchTime.now() < deadline {
            let found = script(
                "SELECT pg_advisory_xact_lock(\(Self.writeLock)); "
                    + "SELECT count(*) FROM livestate_entries WHERE seq = \(seqs[0])", until: deadline)
            switch found {
            case .success(let rows) where rows.integer() == 1: return seqs
            case .success: throw .unavailable("PostgreSQL did not commit the change")
            case .failure: Thread.sleep(forTimeInterval: 0.1)
            }
        }
        throw .outcomeUnknown(key: nil)
    }

    // MARK: Statements

    /// The newest `$1` entries (the start markers left out), newest first, with their items before them, as
    /// long as the items of the newer ones take less than `$2` bytes: 1 MiB items would otherwise make a start
    /// read gigabytes.
    static let newestEntries = """
        SELECT seq, resource, key, body, before FROM (
            SELECT newest.*, sum(size) OVER (ORDER BY seq DESC) - size AS newer FROM (
                SELECT seq, resource, key, body, before,
                    coalesce(octet_length(body), 0) + coalesce(octet_length(before), 0) AS size
                FROM livestate_entries WHERE resource <> '' ORDER BY seq DESC LIMIT $1::int
            ) newest
        ) bounded WHERE newer < $2::bigint ORDER BY seq DESC
        """

    /// The entries after `$1` (the start markers left out), oldest first, at most `$2`, each with where
    /// retention's deletions end; with no entry, one row of that alone.
    static let entriesAfter = """
        WITH pruned AS (SELECT coalesce(max(below), 0) AS below FROM livestate_doc_pruned)
        SELECT e.seq, e.resource, e.key, e.body, pruned.below FROM pruned LEFT JOIN LATERAL (
            SELECT seq, resource, key, body FROM livestate_entries
            WHERE seq > $1::bigint AND resource <> '' ORDER BY seq LIMIT $2::int
        ) e ON true ORDER BY e.seq
        """

    /// The first entries of the writes committed under the keys of `$1` (a JSON array of one array of keys).
    static let keyedEntries = """
        SELECT seq, resource, key, body, write_key, write_request FROM livestate_entries
        WHERE write_key IN (SELECT json_array_elements_text($1::json -> 0))
        """

    /// `keyedEntries`' rows, by key.
    private static func keyed(_ rows: PostgresRows) -> [String: KeyedEntry] {
        var found: [String: KeyedEntry] = [:]
        for row in rows.rows.indices {
            guard let entry = PostgresEntries.entry(rows, row), let key = rows.rows[row][4] else { continue }
            found[key] = KeyedEntry(entry: entry, request: rows.rows[row][5] ?? "")
        }
        return found
    }

    /// Retention: one server at a time (the others skip their turn) deletes all but the newest `keep`
    /// entries, under the writers' lock (so no batch reads the entries while they go), and records where the
    /// deletions end.
    static func pruneStatement(keep: Int64) -> String {
        """
        WITH lock AS (SELECT pg_try_advisory_xact_lock(\(writeLock)) AS held),
        horizon AS (
            SELECT max(seq) - \(keep) + 1 AS below FROM livestate_entries, lock WHERE lock.held GROUP BY lock.held
        ),
        gone AS (DELETE FROM livestate_entries USING horizon WHERE seq < horizon.below RETURNING seq)
        INSERT INTO livestate_doc_pruned (below) SELECT max(seq) + 1 FROM gone HAVING count(*) > 0
        ON CONFLICT (only_row) DO UPDATE SET below = greatest(livestate_doc_pruned.below, excluded.below)
        """
    }

    /// A batch's entries (`$1`: `batch`'s rows, each entry's id as the number), each with its item before it,
    /// and the deletion of the items of every key the batch deleted.
    ///
    /// `before` is `[place,item]` (the item's place in its collection and its JSON, byte for byte) or `null`
    /// (there was none), so that a restarted server can take the state back before its newest entries and
    /// make their events again (`DocumentRewind`). Within a batch, an entry's item before it is the key's
    /// previous entry's, and its place the one that entry left: the place it had before the batch, or, since
    /// the key's last entry that created it, that entry's id (`keepAndNotify` places it there too).
    static let logAndRemove = """
        WITH w AS (
            SELECT (e->>2)::bigint AS seq, e->>0 AS resource, e->>1 AS key, nullif((e->3)::text, 'null') AS body,
                e->>4 AS write_key, e->>5 AS write_request
            FROM json_array_elements($1::json) AS e
        ), previous AS (
            SELECT w.*, i.place AS old_place, i.body AS old_body, lag(w.body) OVER key_order AS prev_body,
                row_number() OVER key_order = 1 AS first
            FROM w LEFT JOIN livestate_doc_items i ON i.resource = w.resource AND i.key = w.key
            WINDOW key_order AS (PARTITION BY w.resource, w.key ORDER BY w.seq)
        ), created AS (
            SELECT previous.*, CASE WHEN first THEN old_body IS NULL ELSE prev_body IS NULL END AS creates
            FROM previous
        ), placed AS (
            SELECT created.*, max(CASE WHEN creates THEN seq END) OVER (
                PARTITION BY resource, key ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ) AS created_at
            FROM created
        ), logged AS (
            INSERT INTO livestate_entries (seq, resource, key, body, before, write_key, write_request)
            SELECT seq, resource, key, body,
                CASE WHEN creates THEN 'null'
                    ELSE '[' || coalesce(created_at, old_place) || ',' || coalesce(prev_body, old_body) || ']' END,
                write_key, write_request
            FROM placed
        )
        DELETE FROM livestate_doc_items i USING w WHERE w.body IS NULL AND i.resource = w.resource AND i.key = w.key
        """

    /// Each key's last item of the batch, where it was or, when the batch created it, at the id of the entry
    /// that did (the end of its collection, where a server applying the entries puts it), and the wake-up of
    /// the other servers with the batch's last id. Runs after `logAndRemove`, whose entries say which ones
    /// created their item.
    static let keepAndNotify = """
        WITH w AS (
            SELECT (e->>2)::bigint AS seq, e->>0 AS resource, e->>1 AS key, nullif((e->3)::text, 'null') AS body
            FROM json_array_elements($1::json) AS e
        ), last AS (
            SELECT DISTINCT ON (resource, key) seq, resource, key, body FROM w ORDER BY resource, key, seq DESC
        ), created AS (
            SELECT e.resource, e.key, max(e.seq) AS seq FROM livestate_entries e
            WHERE e.seq IN (SELECT seq FROM w) AND e.before = 'null' GROUP BY e.resource, e.key
        ), kept AS (
            INSERT INTO livestate_doc_items (resource, key, place, body)
            SELECT last.resource, last.key, coalesce(created.seq, last.seq), last.body
            FROM last LEFT JOIN created ON created.resource = last.resource AND created.key = last.key
            WHERE last.body IS NOT NULL
            ON CONFLICT (resource, key) DO UPDATE SET body = excluded.body
        )
        SELECT pg_notify($2, max(seq)::text) FROM w
        """

    /// The tables (one implicit transaction under `writeLock`, so servers that start together do not race; no
    /// notice for the tables that exist, which libpq would print on the log).
    static let schema = """
        SET LOCAL client_min_messages = warning;
        SELECT pg_advisory_xact_lock(\(writeLock));
        CREATE TABLE IF NOT EXISTS livestate_doc_resources (
            name TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            position INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS livestate_doc_items (
            resource TEXT NOT NULL,
            key TEXT NOT NULL,
            place BIGINT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (resource, key)
        );
        CREATE INDEX IF NOT EXISTS livestate_doc_items_place ON livestate_doc_items (resource, place);
        DO $$ BEGIN
            IF to_regclass('livestate_counter') IS NOT NULL THEN
                RAISE EXCEPTION 'the database holds the seeds'' todos and entries'
                    USING ERRCODE = '\(PostgresEntries.otherDataSetState)';
            END IF;
            IF to_regclass('livestate_doc_entries') IS NOT NULL THEN
                ALTER TABLE livestate_doc_entries ADD COLUMN IF NOT EXISTS write_key TEXT;
                ALTER TABLE livestate_doc_entries ADD COLUMN IF NOT EXISTS write_request TEXT;
                ALTER TABLE livestate_doc_entries ADD COLUMN IF NOT EXISTS before TEXT;
                DROP INDEX IF EXISTS livestate_doc_entries_write_key;
                ALTER TABLE livestate_doc_entries RENAME TO livestate_entries;
            END IF;
        END $$;
        \(PostgresEntries.table)
        CREATE TABLE IF NOT EXISTS livestate_doc_pruned (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            below BIGINT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS livestate_doc_seed (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            source TEXT NOT NULL,
            seeded_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        """

    /// The entries of `entriesAfter`'s rows, and where retention's deletions end.
    private static func records(_ rows: PostgresRows) -> (entries: [JournalEntry], prunedBelow: Int64?) {
        let entries = rows.rows.indices.compactMap { PostgresEntries.entry(rows, $0) }
        return (entries, rows.rows.isEmpty ? nil : rows.integer(0, 4))
    }

    /// `rows` as a JSON array of arrays of strings (nil: null), the parameter `json_array_elements` reads.
    private static func json(_ rows: [[String?]]) -> String {
        (try? JSONCoding.text(rows)) ?? "[]"
    }

    /// One row of a batch parameter: a resource, an item's id text, a number (a place or a journal id), the
    /// item's compact JSON (nil: deleted), and the key of the write whose first entry it is.
    typealias BatchRow = (resource: String, key: String, number: Int64, body: String?, writeKey: WriteKey?)

    /// `rows` as the JSON array `json_array_elements` reads, `[[resource, key, number, item], …]`, a keyed
    /// entry's row with its key and request after them. The items go in as JSON values, not as strings:
    /// PostgreSQL's `json` keeps a value's text as given, so `(e->3)::text` is the item byte for byte, and
    /// no item is escaped here and unescaped there.
    static func batch(_ rows: [BatchRow]) -> String {
        var text = "["
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "," }
            let (resource, key) = (JSONCoding.quoted(row.resource), JSONCoding.quoted(row.key))
            text += "[\(resource),\(key),\(row.number),\(row.body ?? "null")"
            if let write = row.writeKey {
                text += ",\(JSONCoding.quoted(write.key)),\(JSONCoding.quoted(write.request))"
            }
            text += "]"
        }
        return text + "]"
    }

    // MARK: Connection

    /// Blocks until the connection is ready, opening it (with backoff) if needed.
    private func waitForConnection() {
        while true {
            let ready = DispatchSemaphore(value: 0)
            let isReady = Mutex(false)
            loop.execute { [self] in
                if let connection, connection.isReady {
                    isReady.withLock { $0 = true }
                } else {
                    connect()
                }
                ready.signal()
            }
            ready.wait()
            if isReady.withLock({ $0 }) { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// Opens the connection unless it is open or opening; on failure, tries again after a backoff (0.1 s,
    /// doubling up to 2 s), saying so once per try.
    private func connect() {
        guard !connecting, !stopped, connection?.isReady != true else { return }
        connecting = true
        PostgresConnection.open(uri, on: loop, timeout: 5) { [self] result in
            connecting = false
            switch result {
            case .success(let opened):
                backoff = 0.1
                if let since = outageSince {
                    Log.info("postgres: documents connection back after \(Self.seconds(since)) s")
                    outageSince = nil
                }
                opened.onClose = { [weak self] error in self?.lost(error) }
                opened.onNotification = { [weak self] _, _, _ in self?.onCommitted?() }
                opened.query("SET statement_timeout = '3s'") { _ in }
                // NB: a server stopped (SIGSTOP, a VM paused) inside a batch would hold `writeLock`, and so every
                // server's writes, for as long as its socket lives: PostgreSQL ends such a session instead.
                opened.query("SET idle_in_transaction_session_timeout = '4s'") { _ in }
                opened.query("SET jit = off") { _ in }
                opened.query("LISTEN \(Self.channel)") { _ in }
                connection = opened
                onCommitted?()
            case .failure(let error):
                if outageSince == nil { outageSince = Date() }
                let delay = backoff * Double.random(in: 0.5...1.0)
                backoff = min(backoff * 2, 2)
                Log.error(
                    "postgres: cannot open the documents connection (\(error)); retrying in "
                        + "\(String(format: "%.1f", delay)) s")
                _ = loop.schedule(after: delay) { [weak self] in self?.connect() }
            }
        }
    }

    private func lost(_ error: PostgresError) {
        connection = nil
        guard !stopped else { return }
        if outageSince == nil { outageSince = Date() }
        Log.error("postgres: documents connection lost (\(error)); reconnecting")
        _ = loop.schedule(after: backoff * Double.random(in: 0.5...1.0)) { [weak self] in self?.connect() }
    }

    private static func seconds(_ since: Date) -> String {
        String(format: "%.1f", Date().timeIntervalSince(since))
    }

    /// Starts a transaction on the connection as it is now; the transaction's statements all go to it.
    func begin(until deadline: DispatchTime) throws(PostgresError) -> PostgresConnection {
        let box = Mutex<PostgresConnection?>(nil)
        let result = wait(for: nil, "BEGIN", until: deadline) { connection in box.withLock { $0 = connection } }
        guard case .success = result, let session = box.withLock({ $0 }) else {
            if case .failure(let error) = result { throw error }
            throw PostgresError(.unreachable, "no connection")
        }
        return session
    }

    /// Runs one statement of `session`'s transaction; a failure leaves the transaction to `abandon`.
    @discardableResult
    func step(
        _ session: PostgresConnection, _ sql: String, _ parameters: [String?] = [], until deadline: DispatchTime
    ) throws(PostgresError) -> PostgresRows {
        try wait(for: session, sql, parameters, until: deadline).get()
    }

    /// Ends a transaction that failed: rolled back when its session still answers, else the session is closed
    /// (PostgreSQL then rolls it back and frees its lock).
    func abandon(_ session: PostgresConnection) {
        loop.execute { session.query("ROLLBACK") { _ in } }
    }

    /// Runs `sql` on `session` (nil: the connection as it is now) and waits for its answer until `deadline`;
    /// past it, the session is closed (its transaction, if any, is rolled back) and the statement's outcome
    /// is unknown. `used` gets the connection the statement went to, on the loop.
    func wait(
        for session: PostgresConnection?, _ sql: String, _ parameters: [String?] = [], isScript: Bool = false,
        until deadline: DispatchTime, used: (@Sendable (PostgresConnection) -> Void)? = nil
    ) -> Result<PostgresRows, PostgresError> {
        let call = Mutex(StatementCall())
        let done = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            guard let connection = session ?? connection, connection.isReady,
                session == nil || session === self.connection
            else {
                call.withLock {
                    $0.answer = .failure(PostgresError(.unreachable, "the connection to PostgreSQL is closed"))
                }
                done.signal()
                return
            }
            // NB: a caller that gave up before the statement was sent must not leave it to run later.
            let sending = call.withLock { call -> Bool in
                guard !call.abandoned else { return false }
                call.target = connection
                return true
            }
            guard sending else { return }
            used?(connection)
            let finish: PostgresConnection.Completion = { result in
                call.withLock { $0.answer = result }
                done.signal()
            }
            if isScript {
                connection.script(sql, completion: finish)
            } else {
                connection.query(sql, parameters, completion: finish)
            }
        }
        if done.wait(timeout: deadline) == .timedOut {
            let late = call.withLock { call in
                call.abandoned = true
                return call.target
            }
            loop.execute { late?.close("no answer in time") }
            return .failure(PostgresError(.outcomeUnknown, "PostgreSQL did not answer in time"))
        }
        return call.withLock { $0.answer } ?? .failure(PostgresError(.unreachable, "no answer"))
    }

    private func script(_ sql: String, until deadline: DispatchTime) -> Result<PostgresRows, PostgresError> {
        wait(for: nil, sql, isScript: true, until: deadline)
    }
}

/// One statement `wait` hands to the loop: its answer, the connection it went to, and whether the caller
/// gave up before it was sent.
private struct StatementCall: @unchecked Sendable {
    // NB: @unchecked for `target`, a connection used on its loop only; the struct is read under a lock.
    var answer: Result<PostgresRows, PostgresError>?
    var target: PostgresConnection?
    var abandoned = false
}

/// One resource as a journal stores it: its items' id texts and compact JSON, in order.
package struct DocumentRows: Sendable {
    /// The resource's name.
    package var name: String
    /// Collection or singular.
    package var kind: DocumentResource.Kind
    /// The items: id text (`""` for a singular resource) and JSON.
    package var items: [(key: String, body: String)]
    /// Each item's place, as the database orders a collection (ascending), where read from one; else empty.
    package var places: [Int64]

    /// A resource's rows.
    package init(
        name: String, kind: DocumentResource.Kind, items: [(key: String, body: String)], places: [Int64] = []
    ) {
        self.name = name
        self.kind = kind
        self.items = items
        self.places = places
    }
}
