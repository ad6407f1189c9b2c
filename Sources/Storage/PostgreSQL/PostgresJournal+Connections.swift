import Foundation
import LibEvent
import Support

/// The journal's two connections (docs/architecture-instances.md, "Two connections"): `.writes` carries the
/// write batches and everything that must share their session (the download claims are session locks taken
/// in a batch; the key lookups and retention go with them), `.reads` `LISTEN`s and carries the catch-ups,
/// the reloads and `latest`. Each reconnects on its own with backoff; the reader catches up after every
/// reconnect (a `NOTIFY` sent while it was away is lost, the rows are not), and so does the writer (the
/// notifications of its own batches are skipped, so a batch whose answer was lost is read this way).
extension PostgresJournal {
    /// Which of the two connections.
    enum Link: Hashable, CustomStringConvertible {
        case writes
        case reads

        var description: String { self == .writes ? "write" : "read" }
    }

    /// One connection's reconnect state.
    struct LinkState {
        var connecting = false
        var backoff = 0.1
        /// When it was lost (or first failed), until it is back.
        var outage: Date?
    }

    /// Opens `link`'s connection (retrying with backoff), sets it up, then runs `ready` once.
    func connect(_ link: Link, then ready: (@Sendable () -> Void)? = nil) {
        guard links[link]?.connecting == false, !stopped else { return }
        links[link]?.connecting = true
        PostgresConnection.open(uri, on: loop, timeout: 5) { [self] result in
            links[link]?.connecting = false
            switch result {
            case .success(let connection):
                links[link]?.backoff = 0.1
                if let since = links[link]?.outage {
                    let seconds = String(format: "%.1f", Date().timeIntervalSince(since))
                    Log.info("postgres: \(link) connection back after \(seconds) s")
                    links[link]?.outage = nil
                }
                connection.onClose = { [weak self] error in self?.lost(link, error) }
                Self.setUp(connection)
                switch link {
                case .writes:
                    self.connection = connection
                    ready?()
                    catchUp()
                    sendBatch()
                case .reads:
                    reader = connection
                    connection.onNotification = { [weak self] _, payload, sender in self?.woken(payload, by: sender) }
                    connection.query("LISTEN \(Self.channel)") { _ in }
                    ready?()
                    catchUp()
                }
            case .failure(let error):
                if links[link]?.outage == nil { links[link]?.outage = Date() }
                let backoff = links[link]?.backoff ?? 0.1
                let delay = backoff * Double.random(in: 0.5...1.0)
                links[link]?.backoff = min(backoff * 2, 2)
                Log.error(
                    "postgres: cannot open the \(link) connection (\(error)); retrying in \(String(format: "%.1f", delay)) s"
                )
                loop.schedule(after: delay) { [weak self] in self?.connect(link, then: ready) }
            }
        }
    }

    /// A wake-up: the payload is the newest id the notifying commit holds, so there is nothing to read when it
    /// is applied; and a commit of this instance's own write session is applied from its batch's result (a
    /// batch whose answer is lost is read after the write connection is back).
    private func woken(_ payload: String, by sender: Int32) {
        if let connection, sender != 0, sender == connection.backendPID { return }
        guard Int64(payload).map({ $0 > lastApplied }) ?? true else { return }
        catchUp()
    }

    /// The session settings of both connections.
    private static func setUp(_ connection: PostgresConnection) {
        connection.query("SET statement_timeout = '3s'") { _ in }
        // NB: the writes' CTEs are estimated far above one row: JIT compiled each (1–3 s of CPU).
        connection.query("SET jit = off") { _ in }
        // NB: a host that vanishes without closing its socket frees its session (and its download
        // claims: PostgresJournal+Claims.swift) after 5 s idle + 3 unanswered probes 2 s apart.
        connection.query(
            "SELECT set_config('tcp_keepalives_idle', '5', false), "
                + "set_config('tcp_keepalives_interval', '2', false), "
                + "set_config('tcp_keepalives_count', '3', false)"
        ) { _ in }
    }

    private func lost(_ link: Link, _ error: PostgresError) {
        switch link {
        case .writes:
            connection = nil
            // NB: PostgreSQL ended the session's advisory locks with it.
            claims = []
            // NB: the batch in flight is back in the queue (its completion ran first); queued writes wait for
            // the reconnect until their deadline.
            guard !stopped else { return answerQueued("the server is shutting down") }
        case .reads:
            reader = nil
            catchingUp = false
            guard !stopped else { return }
        }
        if links[link]?.outage == nil { links[link]?.outage = Date() }
        Log.error("postgres: \(link) connection lost (\(error)); reconnecting")
        let delay = (links[link]?.backoff ?? 0.1) * Double.random(in: 0.5...1.0)
        loop.schedule(after: delay) { [weak self] in self?.connect(link) }
    }

    /// Creates or migrates the schema (`migrations`: its steps, each a transaction under an advisory lock, so
    /// instances that start together do not race), then reads the todos and the counter in one snapshot; a
    /// database of a newer LiveState, or one a data file filled, is refused (not retried: waiting would not
    /// change it).
    func bootstrap(_ done: @escaping @Sendable (Result<Snapshot, PostgresError>) -> Void) {
        guard let connection, connection.isReady else {
            // The connection broke before the schema was there: `lost` reconnects; try again then.
            loop.schedule(after: 0.5) { [weak self] in self?.bootstrap(done) }
            return
        }
        Self.migrations.migrate(connection) { [self] result in
            if case .failure(let error) = result, error.sqlState == Self.newerSchemaState {
                return refuseNewer(connection, done)
            }
            if case .failure(let error) = result, error.sqlState == PostgresEntries.otherDataSetState {
                return done(
                    .failure(
                        PostgresError(
                            .refused,
                            "the database holds a data file's resources; the seeds need a database of their own",
                            sqlState: error.sqlState)))
            }
            if case .failure(let error) = result, error.sqlState == PostgresMigrations.newerStepState {
                return done(.failure(error))
            }
            if case .failure(let error) = result {
                Log.error("postgres: schema setup failed (\(error)); retrying")
                loop.schedule(after: 1) { [weak self] in self?.bootstrap(done) }
                return
            }
            connection.query(Self.snapshotStatement) { [self] result in
                guard case .success(let rows) = result, let snapshot = Self.snapshot(rows) else {
                    Log.error("postgres: cannot read the todos; retrying")
                    loop.schedule(after: 1) { [weak self] in self?.bootstrap(done) }
                    return
                }
                startSeq = snapshot.lastSeq
                done(.success(snapshot))
            }
        }
    }

    private func refuseNewer(
        _ connection: PostgresConnection, _ done: @escaping @Sendable (Result<Snapshot, PostgresError>) -> Void
    ) {
        connection.query("SELECT max(version) FROM livestate_schema") { result in
            let found = (try? result.get().integer(0, 0)).map { String($0) } ?? "above \(Self.schemaVersion)"
            done(
                .failure(
                    PostgresError(
                        .refused,
                        "the database has schema version \(found), written by a newer LiveState;"
                            + " this one knows versions up to \(Self.schemaVersion)",
                        sqlState: Self.newerSchemaState)))
        }
    }
}
