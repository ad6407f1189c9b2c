package import Domain
import Foundation
import HTTP
package import LibEvent

/// The shared state of several instances in one PostgreSQL database: each todo write commits the todo row
/// and its journal entry in one statement, every other input (a selection, a keyword, a refresh, a
/// downloaded image) is one journal entry, journal ids come from a counter row locked by the writing
/// transaction (so they follow commit order), and `NOTIFY livestate_events` — no payload — wakes every
/// instance to read the entries after the last one it applied. See docs/architecture-instances.md.
///
/// Runs on its own loop; `write`, `append` and `whenApplied` may be called from any thread. Entries reach
/// `follow`'s handler on that loop, strictly in id order, each exactly once.
///
/// ```swift
/// let journal = PostgresJournal(uri: "postgresql://127.0.0.1/livestate", loop: loop)
/// let start = journal.start()                       // blocks (startup only) until the database answers
/// journal.follow(after: start.lastSeq) { entries in … }
/// journal.write(.insert(title: "Walk the dog", completed: false)) { result in … }
/// journal.append(topic: "frameworks", json: #"{"name":"Combine"}"#, key: nil) { result in … }
/// ```
package final class PostgresJournal: Journal, @unchecked Sendable {
    // NB: @unchecked because every var is touched on `loop` only: public methods hop there first.

    /// What the database held at a journal position (`Journal.start`).
    package typealias Snapshot = JournalSnapshot
    /// What one journal entry says.
    package typealias Change = JournalChange
    /// One committed change and its journal id.
    package typealias Entry = JournalEntry
    /// A todo write as the routes ask for it.
    package typealias Write = TodoWrite

    /// Seconds within which a write is answered, whatever the database does (5 s; docs/api.md, storage_unavailable).
    package static let answerWithin = 5.0
    /// The channel every write notifies and every instance listens to.
    static let channel = "livestate_events"

    /// The loop the connection runs on.
    package let loop: EventLoop
    /// How many of the newest entries retention keeps.
    let retention: Int64
    private let uri: String
    var connection: PostgresConnection?
    private var connecting = false
    private var backoff = 0.1
    var lastApplied: Int64 = 0
    /// The journal id of the snapshot `start` answered: `recent` reads the entries up to it, so the lists
    /// rebuilt backwards from that snapshot's todos match what each entry's event carried.
    var startSeq: Int64 = 0
    var following: (@Sendable ([Entry]) -> Void)?
    private var catchingUp = false
    private var catchUpAgain = false
    /// Answered once the entry with this journal id is applied here: writes (read-your-writes) and held
    /// `/events` clients whose `Last-Event-ID` is ahead of this instance.
    var waiting: [(seq: Int64, done: () -> Void)] = []
    /// Writes waiting for the next batch (`PostgresWriteBatch.swift`), and the batch in flight.
    var queued: [QueuedWrite] = []
    var inFlight: [QueuedWrite] = []
    var writeNumber = 0
    /// Group commit's figures, logged at shutdown: batches committed, the writes they committed, the largest.
    var commits = 0
    var committedWrites = 0
    var largestBatch = 0
    private var timers: [LoopTimer] = []
    var stopped = false
    private var outage: Date?
    /// Catch-up queries sent, and how many of them only because a held client asked (the reconnect-storm
    /// figure: docs/architecture-instances.md).
    private var queries = 0
    private var clientQueries = 0

    /// Creates a journal for `uri` on `loop` (running) that keeps the newest `retention` entries; nothing
    /// is sent until `start`.
    package init(uri: String, loop: EventLoop, retention: Int64 = 100_000) {
        self.uri = uri
        self.loop = loop
        self.retention = max(1, retention)
    }

    // MARK: Start

    /// Connects (retrying with backoff while the database is unreachable, and logging each try), creates or
    /// migrates the schema and reads the todos with their journal position. Blocks the calling thread, which
    /// must not be `loop`'s: the server does not serve before its data is there.
    package func start() -> Snapshot {
        precondition(!loop.inLoop, "start waits for the loop")
        let box = SnapshotBox()
        let ready = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            connect { [self] in
                bootstrap { snapshot in
                    box.value = snapshot
                    ready.signal()
                }
            }
        }
        ready.wait()
        return box.value!
    }

    /// Starts applying the entries after `seq`, in order, on the loop: after every wake-up, every reconnect,
    /// and every 2 s in case a wake-up was lost.
    package func follow(after seq: Int64, _ handler: @escaping @Sendable ([Entry]) -> Void) {
        loop.execute { [self] in
            lastApplied = seq
            following = handler
            timers.append(loop.schedule(after: 2, repeating: 2) { [weak self] in self?.catchUp() })
            timers.append(loop.schedule(after: 5, repeating: 60) { [weak self] in self?.prune() })
            catchUp()
        }
    }

    /// Stops reconnecting and closes the connection (shutdown).
    package func stop() {
        loop.execute { [self] in
            stopped = true
            Log.info("postgres: \(committedWrites) todo writes in \(commits) commits (largest batch \(largestBatch))")
            for timer in timers { timer.cancel() }
            timers = []
            connection?.close("shutting down")
            connection = nil
        }
    }

    /// Calls `done(true)` on the loop once the entry `seq` is applied here (at once if it is), or
    /// `done(false)` after `timeout` seconds. Clients waiting together share one catch-up query.
    package func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) {
        loop.execute { [self] in
            guard seq > lastApplied else { return done(true) }
            let answer = Once(done)
            loop.schedule(after: timeout) { answer.call(false) }
            waiting.append((seq, { answer.call(true) }))  // NB: the timer then finds it answered
            if !catchingUp { clientQueries += 1 }
            catchUp()
        }
    }

    // MARK: Following

    /// Reads and applies the entries after the last applied one; one query at a time (a wake-up during a
    /// query causes one more query, not one each).
    func catchUp() {
        guard following != nil, let connection, connection.isReady else { return }
        guard !catchingUp else {
            catchUpAgain = true
            return
        }
        catchingUp = true
        catchUpAgain = false
        queries += 1
        let held = waiting.count
        connection.query(Self.catchUpStatement, [String(lastApplied)]) { [self] result in
            catchingUp = false
            guard case .success(let rows) = result else { return }
            if let prunedBelow = rows.integer(0, 3), lastApplied + 1 < prunedBelow {
                reload(after: prunedBelow)
                return
            }
            var entries: [Entry] = []
            for (index, row) in rows.rows.enumerated() {
                guard let seq = rows.integer(index, 0), seq > lastApplied else { continue }
                guard let change = Self.change(topic: row[1] ?? "", json: row[2] ?? "") else {
                    Log.error("postgres: journal entry \(seq) cannot be read; skipped")
                    lastApplied = seq
                    continue
                }
                entries.append(Entry(seq: seq, change: change))
                lastApplied = seq
            }
            if !entries.isEmpty { following?(entries) }
            release(held: held)
            if rows.rows.count == 1000 || catchUpAgain { catchUp() }
        }
    }

    /// Answers every write and held client whose entry is applied now.
    func release(held: Int) {
        let applied = lastApplied
        let ready = waiting.filter { $0.seq <= applied }
        waiting.removeAll { $0.seq <= applied }
        if held > 0, !ready.isEmpty {
            Log.info(
                "postgres: catch-up queries \(queries), \(clientQueries) for held clients; \(ready.count) released")
        }
        for waiter in ready { waiter.done() }
    }

    /// This instance was away longer than retention keeps entries: the ones it missed are gone, so it loads
    /// the whole list at the journal's position instead and goes on from there (`TodoChange.all`).
    private func reload(after prunedBelow: Int64) {
        guard let connection, connection.isReady else { return }
        Log.warning("postgres: entries \(lastApplied + 1)..<\(prunedBelow) were deleted by retention; reloading")
        catchingUp = true
        connection.query(Self.snapshotStatement) { [self] result in
            catchingUp = false
            guard case .success(let rows) = result, let snapshot = Self.snapshot(rows) else { return }
            lastApplied = snapshot.lastSeq
            following?([Entry(seq: snapshot.lastSeq, change: .todo(.all(snapshot.todos)))])
            release(held: waiting.count)
            catchUp()
        }
    }

    /// Keeps the journal bounded: one instance at a time deletes all but the newest `retention` entries.
    /// An instance's memory holds far fewer, so no resume it can serve needs a deleted one.
    private func prune() {
        guard let connection, connection.isReady else { return }
        connection.query(Self.pruneStatement(keep: retention)) { result in
            if case .failure(let error) = result, error.kind == .refused {
                Log.error("postgres: journal retention failed: \(error)")
            }
        }
    }

    // MARK: Connection

    /// Opens a connection (retrying with backoff), sets it up, then runs `ready` once.
    private func connect(then ready: (@Sendable () -> Void)? = nil) {
        guard !connecting, !stopped else { return }
        connecting = true
        PostgresConnection.open(uri, on: loop, timeout: 5) { [self] result in
            connecting = false
            switch result {
            case .success(let connection):
                self.connection = connection
                backoff = 0.1
                if let since = outage {
                    Log.info("postgres: reconnected after \(String(format: "%.1f", Date().timeIntervalSince(since))) s")
                    outage = nil
                }
                // NB: the payload is the newest id the notifying commit holds: nothing to read when it is applied.
                connection.onNotification = { [weak self] _, payload in
                    guard let self, Int64(payload).map({ $0 > self.lastApplied }) ?? true else { return }
                    catchUp()
                }
                connection.onClose = { [weak self] error in self?.lost(error) }
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
                connection.query("LISTEN \(Self.channel)") { _ in }
                ready?()
                catchUp()
                sendBatch()
            case .failure(let error):
                if outage == nil { outage = Date() }
                let delay = backoff * Double.random(in: 0.5...1.0)
                backoff = min(backoff * 2, 2)
                Log.error("postgres: cannot connect (\(error)); retrying in \(String(format: "%.1f", delay)) s")
                loop.schedule(after: delay) { [weak self] in self?.connect(then: ready) }
            }
        }
    }

    private func lost(_ error: PostgresError) {
        connection = nil
        catchingUp = false
        // NB: the batch in flight is back in the queue (its completion ran first); queued writes wait for
        // the reconnect until their deadline.
        guard !stopped else { return answerQueued("the server is shutting down") }
        if outage == nil { outage = Date() }
        Log.error("postgres: connection lost (\(error)); reconnecting")
        let delay = backoff * Double.random(in: 0.5...1.0)
        loop.schedule(after: delay) { [weak self] in self?.connect() }
    }

    /// Creates or migrates the schema (one implicit transaction under an advisory lock, so instances that
    /// start together do not race), then reads the todos and the counter in one snapshot.
    private func bootstrap(_ done: @escaping @Sendable (Snapshot) -> Void) {
        guard let connection, connection.isReady else {
            // The connection broke before the schema was there: `lost` reconnects; try again then.
            loop.schedule(after: 0.5) { [weak self] in self?.bootstrap(done) }
            return
        }
        connection.script(Self.schema) { [self] result in
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
                done(snapshot)
            }
        }
    }
}
