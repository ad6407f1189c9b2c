import Dispatch
import Domain
import Foundation
package import LibEvent
import Support
import Synchronization

/// A data file's resources in a PostgreSQL database that several servers share (`--data postgres://…` with a
/// `FILE.json`): the database is the truth, the file only fills an empty database once. It can hold the seeds'
/// data set instead (`DataSet`: the todos a collection, each other input a singular resource); a database holds
/// one of them, and a store refuses the other.
///
/// - `livestate_doc_resources`: the resources (name, kind, the file's order).
/// - `livestate_doc_items`: the current items of every resource (`place` keeps the collection's order), so a
///   start reads the state in one query; a singular resource is its row with key `''`. Each entry keeps the
///   item before it with its place (`before`), so a start can take the items back before its newest entries
///   and make their events again (`DocumentRewind`).
/// - `livestate_entries` (`entriesTable`, both data sets): one row per committed change (`seq`:
///   commit order, the event id's base; body NULL for a delete), which the other servers read after a
///   `NOTIFY livestate_documents`; a write's first entry keeps its `Idempotency-Key` and request
///   (`write_key`, unique, and `write_request`), so the same request sent again to any server is answered
///   from it. A database of an older server kept them in `livestate_doc_entries`, renamed at start. A
///   database of the other data set is refused (not retried).
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
package final class PostgresDocumentJournal: @unchecked Sendable {
    // NB: @unchecked because every var is touched on `loop` only: the calls hop there first.

    /// The advisory lock every writer holds until its commit (positive: the claims' keys are negative).
    static let writeLock = 7_428_010
    /// The channel every batch notifies with its last entry's id.
    static let channel = "livestate_documents"
    /// The part of a batch's time kept for learning the outcome of a commit whose answer was lost.
    static let settleTime = DispatchTimeInterval.milliseconds(1500)

    let uri: String
    let loop: EventLoop
    var connection: PostgresConnection?
    var connecting = false
    var backoff = 0.1
    var outageSince: Date?
    var stopped = false
    var onCommitted: (@Sendable () -> Void)?
    private var followTimer: LoopTimer?
    private var pruneTimer: LoopTimer?
    /// How many of the newest entries retention keeps (`--journal-retention`).
    private let retention: Int64
    /// What the database holds: a data file's resources or the seeds'; the other is refused.
    let dataSet: DataSet
    /// The writes committed by this server's batches (the seeds': their todo writes), logged at `stop`.
    let committedWrites = Mutex(BatchTally())
    /// The id the next entry takes, when this server's last batch found no one else writing (nil: unknown, the
    /// next batch reads under the lock first); what a batch planned without reading expects (`commitBatch`).
    let expectedID = Mutex<Int64?>(nil)
    /// The newest entry other servers announced (`NOTIFY`), and whether a wake-up came that names none (a
    /// reconnect, the 2 s poll): a catch-up after the entries announced, with no such wake-up, reads nothing.
    let announced = Mutex(Announced())

    /// A journal of the database at `uri`, holding `dataSet`, on a loop of its own that keeps the newest
    /// `retention` entries; nothing is sent until `start`.
    package init(uri: String, retention: Int = 100_000, dataSet: DataSet = .file) throws(LibEventError) {
        self.uri = uri
        self.retention = Int64(max(1, retention))
        self.dataSet = dataSet
        loop = try EventLoop(name: "livestate-postgres-documents")
        loop.run()
    }

    // MARK: Start

    /// What the database holds at start.
    package struct Start: Sendable {
        /// The journal id this run starts from (every entry it applies is above it): a data file's run takes one,
        /// the seeds' the newest entry's.
        package var seq: Int64
        /// Whether this start's file filled the database.
        package var seeded: Bool
        /// The resources, in the file's order, with their items' id texts, JSON and places.
        package var resources: [DocumentRows]
        /// The newest entries (within the `recent` count and bytes asked for), newest first, each with its item
        /// before it (`DocumentRewind` takes the resources back before them).
        package var recent: [JournalRow]
    }

    /// Connects (retrying with backoff while the database is unreachable, and saying so), migrates the schema
    /// (`migrations`; a database of a newer LiveState is thrown, `.refused`),
    /// fills an empty database with the resources `seeding` answers (called only then, in one transaction
    /// under `writeLock`: of servers starting together, one seeds and the others read its rows; for the seeds'
    /// data set, it is called at every start, and the resources it names that the database lacks are added,
    /// empty, after the others), and reads
    /// the state with its newest entries: at most `recent.count`, and no more than `recent.bytes` of items and
    /// items before them (the newest one always). Blocks until it can answer; what `seeding` throws is thrown,
    /// and so is a database of the other data set (`PostgresError`, `.refused`).
    package func start(
        source: String, recent: (count: Int, bytes: Int) = (0, 0), seeding: () throws -> [DocumentRows]
    ) throws -> Start {
        while true {
            let deadline = DispatchTime.now() + 600
            waitForConnection()
            let schema = migrate(until: deadline)
            if case .failure(let error) = schema,
                [PostgresMigrations.newerStepState, Self.newerSchemaState].contains(error.sqlState)
            {
                throw error  // NB: not retried: a newer LiveState's database stays newer
            }
            if case .failure(let error) = schema, error.sqlState == Self.otherDataSetState {
                // NB: not retried: the other data set's servers keep using the database.
                throw PostgresError(
                    .refused,
                    dataSet == .file
                        ? "the database holds the seeds' todos and entries; a data file needs a database of its own"
                        : "the database holds a data file's resources; the seeds need a database of their own",
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
            if seeded {
                try seed(seeding(), source: source, on: session, until: deadline)
            } else if dataSet == .seeds {
                try addMissing(seeding(), on: session, until: deadline)
            }
            // NB: a run's events that are not entries are numbered after this id. A data file's run takes it as an
            // entry of its own; the seeds' servers number them after the newest entry, as their counter did, so
            // servers that start together give an event that is not an entry (a live query's first result) one id.
            let sql =
                dataSet == .file
                ? "INSERT INTO livestate_entries (resource, key, body) VALUES ('', '', NULL) RETURNING seq"
                : "SELECT coalesce(max(seq), 0) FROM livestate_entries"
            guard let seq = try step(session, sql, until: deadline).integer() else {
                throw PostgresError(.refused, "no journal id was given")
            }
            let state = try readResources(session, until: deadline)
            let rows = try step(
                session, Self.newestEntries, [String(recent.count), String(recent.bytes)], until: deadline)
            let entries = rows.rows.indices.compactMap { index -> JournalRow? in
                guard let entry = Self.entry(rows, index) else { return nil }
                return JournalRow(seq: entry.seq, change: entry.change, before: rows.rows[index][4])
            }
            try step(session, "COMMIT", until: deadline)
            return Start(seq: seq, seeded: seeded, resources: state, recent: entries)
        } catch {
            abandon(session)
            throw error
        }
    }

    /// The resources, in the file's order, with their items and places in their collection's order, and (the
    /// seeds' data set) each collection's largest integer id (in `session`'s transaction).
    func readResources(_ session: PostgresConnection, until deadline: DispatchTime) throws(PostgresError)
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
        var largest: [String: Int64] = [:]
        if dataSet == .seeds {
            let ids = try step(session, "SELECT resource, last FROM livestate_doc_item_ids", until: deadline)
            for (index, row) in ids.rows.enumerated() {
                if let resource = row[0], let last = ids.integer(index, 1) { largest[resource] = last }
            }
        }
        return kinds.rows.compactMap { row -> DocumentRows? in
            guard let name = row[0], let kind = row[1].flatMap(DocumentResource.Kind.init(rawValue:)) else {
                return nil
            }
            return DocumentRows(
                name: name, kind: kind, items: byName[name] ?? [], places: places[name] ?? [], largestID: largest[name])
        }
    }

    /// Writes the file's resources and items (in chunks of a few MB) and the seed row, in `session`'s
    /// transaction. Seeded items take places below every entry's id, in the file's order.
    private func seed(
        _ resources: [DocumentRows], source: String, on session: PostgresConnection, until deadline: DispatchTime
    ) throws(PostgresError) {
        try addMissing(resources, on: session, until: deadline)
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
        if dataSet == .seeds { try step(session, Self.largestIDs(of: "livestate_doc_items"), until: deadline) }
        // NB: only the seeds' steps add `data_set` (a data file's database has none: its default is `file`).
        let seed =
            dataSet == .seeds
            ? "INSERT INTO livestate_doc_seed (source, data_set) VALUES ($1, 'seeds')"
            : "INSERT INTO livestate_doc_seed (source) VALUES ($1)"
        try step(session, seed, [source], until: deadline)
    }

    /// Adds the resources of `resources` the database lacks, in their order after the others, empty (in
    /// `session`'s transaction): a seeding's resources, and the seeds' inputs that a database of an older
    /// server has no entry of.
    private func addMissing(
        _ resources: [DocumentRows], on session: PostgresConnection, until deadline: DispatchTime
    ) throws(PostgresError) {
        let kinds = resources.enumerated().map { [$1.name, $1.kind.rawValue, String($0)] }
        try step(
            session,
            """
            INSERT INTO livestate_doc_resources (name, kind, position)
            SELECT e->>0, e->>1, (SELECT coalesce(max(position), -1) + 1 FROM livestate_doc_resources) + (e->>2)::int
            FROM json_array_elements($1::json) AS e ON CONFLICT (name) DO NOTHING
            """, [Self.json(kinds)], until: deadline)
    }

    /// Calls `committed` (on the journal's loop) whenever another server may have committed entries: on
    /// each `NOTIFY`, after each reconnect (a notification sent meanwhile is lost), and every 2 s. Starts
    /// retention too: 5 s from now, then every 60 s.
    package func follow(_ committed: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            onCommitted = committed
            followTimer = loop.schedule(after: 2, repeating: 2) { [weak self] in self?.wake(announcing: nil) }
            // NB: the statement blocks its caller until the loop answers: it runs off the loop.
            pruneTimer = loop.schedule(after: 5, repeating: 60) { [weak self] in
                guard let self else { return }
                DispatchQueue.global().async { self.prune() }
            }
            wake(announcing: nil)
        }
    }

    /// Calls `onCommitted` after another server committed up to the entry `seq` (nil: entries may have been
    /// committed, which ones unknown).
    func wake(announcing seq: Int64?) {
        announced.withLock { announced in
            if let seq { announced.seq = max(announced.seq, seq) } else { announced.unknown = true }
        }
        onCommitted?()
    }

    /// What other servers announced (`announced`).
    struct Announced {
        var seq: Int64 = 0
        var unknown = true
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
        Log.info("postgres: " + batchTally.line(dataSet == .seeds ? "todo writes" : "writes"))
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
}
