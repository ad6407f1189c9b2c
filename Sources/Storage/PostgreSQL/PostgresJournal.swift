package import Domain
import Foundation
package import LibEvent
import Support

/// The shared state of several instances in one PostgreSQL database: each todo write commits the todo row
/// and its journal entry in one statement, every other input (a selection, a keyword, a refresh, a
/// downloaded image) is one journal entry (both rows of `livestate_entries`, `PostgresEntries`, the table a
/// data file's journal uses too), journal ids come from a counter row locked by the writing
/// transaction (so they follow commit order), and `NOTIFY livestate_events` — no payload — wakes every
/// instance to read the entries after the last one it applied. See docs/architecture-instances.md.
///
/// Two connections (`PostgresJournal+Connections.swift`): one for the write batches (and what must share
/// their session: the download claims, the key lookups, retention), one that `LISTEN`s and reads the
/// journal (catch-ups, reloads, `latest`), so a read never waits behind a batch's commit nor a batch behind
/// a read, and a wake-up is not held by a backend busy in a batch (PostgreSQL delivers a `NOTIFY` to a
/// session only between its transactions).
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
    let uri: String
    /// The write batches' connection (and the claims', key lookups' and retention's).
    var connection: PostgresConnection?
    /// The connection that listens and reads the journal.
    var reader: PostgresConnection?
    /// Each connection's reconnect state.
    var links: [Link: LinkState] = [.writes: LinkState(), .reads: LinkState()]
    var lastApplied: Int64 = 0
    /// This instance's committed entries that could not be applied from their batch's result yet (an entry
    /// of another instance before them was not read yet), in id order: applied as soon as they follow the
    /// last applied id, or read by a catch-up like any entry.
    var deferred: [Entry] = []
    /// The download claims the write session holds (`PostgresJournal+Claims.swift`).
    var claims: Set<Int64> = []
    /// The journal id of the snapshot `start` answered: `recent` reads the entries up to it, so the lists
    /// rebuilt backwards from that snapshot's todos match what each entry's event carried.
    var startSeq: Int64 = 0
    var following: (@Sendable ([Entry]) -> Void)?
    var catchingUp = false
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
    /// must not be `loop`'s: the server does not serve before its data is there. A database written by a
    /// newer LiveState (`open`'s error) ends the process with status 1 and a line naming both versions.
    package func start() -> Snapshot {
        do {
            return try open()
        } catch {
            Log.error("postgres: \(error.message); not starting")
            exit(1)
        }
    }

    /// `start`, but a database of a schema version above this binary's, or one a data file filled, is thrown (nothing
    /// in it changed).
    package func open() throws(PostgresError) -> Snapshot {
        precondition(!loop.inLoop, "start waits for the loop")
        let box = SnapshotBox()
        let ready = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            connect(.writes) { [self] in
                bootstrap { [self] result in
                    guard case .success = result else {
                        box.value = result
                        ready.signal()
                        return
                    }
                    // NB: the reader connects once the schema is there (it LISTENs and reads its tables).
                    connect(.reads) {
                        box.value = result
                        ready.signal()
                    }
                }
            }
        }
        ready.wait()
        return try box.value!.get()
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

    /// Stops reconnecting and closes the connections (shutdown).
    package func stop() {
        loop.execute { [self] in
            stopped = true
            Log.info("postgres: \(committedWrites) todo writes in \(commits) commits (largest batch \(largestBatch))")
            for timer in timers { timer.cancel() }
            timers = []
            connection?.close("shutting down")
            connection = nil
            reader?.close("shutting down")
            reader = nil
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

    /// Reads and applies the entries after the last applied one, on the reader; one query at a time (a
    /// wake-up during a query causes one more query, not one each).
    func catchUp() {
        guard following != nil, let reader, reader.isReady else { return }
        guard !catchingUp else {
            catchUpAgain = true
            return
        }
        catchingUp = true
        catchUpAgain = false
        queries += 1
        let held = waiting.count
        let watchdog = silence(reader, "a catch-up")
        reader.query(Self.catchUpStatement, [String(lastApplied)]) { [self] result in
            watchdog.cancel()
            catchingUp = false
            guard case .success(let rows) = result else { return }
            if let prunedBelow = rows.integer(0, 4), lastApplied + 1 < prunedBelow {
                reload(after: prunedBelow)
                return
            }
            apply(rows)
            release(held: held)
            if rows.rows.count == 1000 || catchUpAgain { catchUp() }
        }
    }

    /// Applies the entries of a catch-up's `rows` after the last applied one (the rows are every id above
    /// the one asked from, in order; those a faster read applied meanwhile are skipped), then the deferred
    /// entries of this instance's batches that follow them.
    func apply(_ rows: PostgresRows) {
        var entries: [Entry] = []
        for index in rows.rows.indices {
            guard let seq = rows.integer(index, 0), seq > lastApplied else { continue }
            guard let entry = PostgresEntries.entry(rows, index) else {
                Log.error("postgres: journal entry \(seq) cannot be read; skipped")
                lastApplied = seq
                continue
            }
            entries.append(entry)
            lastApplied = seq
        }
        if !entries.isEmpty { following?(entries) }
        applyDeferred()
    }

    /// Applies the deferred entries of this instance's batches that follow the last applied id now (the
    /// entries before them were read), and forgets the ones a catch-up applied.
    func applyDeferred() {
        guard let following else { return }
        deferred.removeAll { $0.seq <= lastApplied }
        var next: [Entry] = []
        while let first = deferred.first, first.seq == lastApplied + 1 {
            next.append(deferred.removeFirst())
            lastApplied = first.seq
        }
        if !next.isEmpty { following(next) }
    }

    /// Closes `connection` when `what` sent on it now gets no answer within `silenceLimit`: the server ends
    /// every statement within its 3 s `statement_timeout`, so silence past that is the network.
    func silence(_ connection: PostgresConnection, _ what: String) -> LoopTimer {
        loop.schedule(after: Self.silenceLimit) { [weak connection] in
            Log.error("postgres: \(what) got no answer within \(Self.silenceLimit) s")
            connection?.close("no answer within \(Self.silenceLimit) s")
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
        guard let reader, reader.isReady else { return }
        Log.warning("postgres: entries \(lastApplied + 1)..<\(prunedBelow) were deleted by retention; reloading")
        catchingUp = true
        reader.query(Self.snapshotStatement) { [self] result in
            catchingUp = false
            guard case .success(let rows) = result, let snapshot = Self.snapshot(rows) else { return }
            lastApplied = snapshot.lastSeq
            following?([Entry(seq: snapshot.lastSeq, change: Change(TodoChange.all(snapshot.todos)))])
            applyDeferred()
            release(held: waiting.count)
            catchUp()
        }
    }

    /// Keeps the journal bounded: one instance at a time deletes all but the newest `retention` entries.
    /// An instance's memory holds far fewer, so no resume it can serve needs a deleted one. On the write
    /// connection: its `UPDATE` of the counter row waits for a batch's lock, which must not hold up reads.
    private func prune() {
        guard let connection, connection.isReady else { return }
        connection.query(Self.pruneStatement(keep: retention)) { result in
            if case .failure(let error) = result, error.kind == .refused {
                Log.error("postgres: journal retention failed: \(error)")
            }
        }
    }
}
