package import Domain
import Foundation
import HTTP
package import LibEvent

/// The todos of several instances in one PostgreSQL database: each write commits the todo row and its
/// journal entry in one statement, journal ids come from a counter row locked by the writing transaction
/// (so they follow commit order), and `NOTIFY livestate_events` — no payload — wakes every instance to
/// read the entries after the last one it applied. See docs/architecture-instances.md.
///
/// Runs on its own loop; `write` may be called from any thread. Entries reach `follow`'s handler on that
/// loop, strictly in id order, each exactly once.
///
/// ```swift
/// let journal = PostgresJournal(uri: "postgresql://127.0.0.1/livestate", loop: loop)
/// let start = journal.start()                       // blocks (startup only) until the database answers
/// journal.follow(after: start.lastSeq) { entries in … }
/// journal.write(.insert(title: "Walk the dog", completed: false)) { result in … }
/// ```
package final class PostgresJournal: @unchecked Sendable {
    // NB: @unchecked because every var is touched on `loop` only: public methods hop there first.

    /// What the database held when the instance started: the todos and the journal id they reflect.
    package struct Snapshot: Sendable {
        /// Every todo, ordered by id.
        package var todos: [Todo]
        /// The id of the last journal entry committed when `todos` was read.
        package var lastSeq: Int64
    }

    /// One committed change and its journal id.
    package struct Entry: Sendable {
        /// The journal id: commit order, the same on every instance.
        package var seq: Int64
        /// The change.
        package var change: TodoChange
    }

    /// A todo write as the routes ask for it.
    package enum Write: Sendable {
        /// `POST /todos` (the title already validated and trimmed).
        case insert(title: String, completed: Bool)
        /// `PATCH /todos/:id` (nil keeps the field).
        case update(id: Int, title: String?, completed: Bool?)
        /// `DELETE /todos/:id`.
        case delete(id: Int)
    }

    /// Seconds within which a write is answered, whatever the database does (5 s; docs/api.md, storage_unavailable).
    package static let answerWithin = 5.0
    /// The channel every write notifies and every instance listens to.
    static let channel = "livestate_events"

    /// The loop the connection runs on.
    package let loop: EventLoop
    private let uri: String
    private var connection: PostgresConnection?
    private var connecting = false
    private var backoff = 0.1
    private var lastApplied: Int64 = 0
    private var following: (@Sendable ([Entry]) -> Void)?
    private var catchingUp = false
    private var catchUpAgain = false
    /// Writes answered once their entry is applied here (read-your-writes), by journal id.
    private var waiting: [(seq: Int64, done: () -> Void)] = []
    private var timers: [LoopTimer] = []
    private var stopped = false
    private var outage: Date?

    /// Creates a journal for `uri` on `loop` (running); nothing is sent until `start`.
    package init(uri: String, loop: EventLoop) {
        self.uri = uri
        self.loop = loop
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
            for timer in timers { timer.cancel() }
            timers = []
            connection?.close("shutting down")
            connection = nil
        }
    }

    // MARK: Writes

    /// Commits `write` and its journal entry in one statement; `completion` (on the loop) gets the todo (nil
    /// for a delete) once the entry is applied here, `.notFound`, or `.unavailable` within `answerWithin`
    /// seconds when the database cannot be reached. A write answered `.unavailable` was not committed,
    /// except when the connection broke after the commit and before its answer (logged as unknown).
    package func write(_ write: Write, completion: @escaping @Sendable (Result<Todo?, TodoError>) -> Void) {
        loop.execute { [self] in
            guard let connection, connection.isReady else {
                completion(.failure(.unavailable("PostgreSQL is unreachable")))
                return
            }
            let answer = Once(completion)
            let deadline = loop.schedule(after: Self.answerWithin) { [weak self] in
                guard answer.call(.failure(.unavailable("PostgreSQL did not answer in time"))) else { return }
                Log.error("postgres: a write got no answer within \(Self.answerWithin) s; outcome unknown")
                // NB: a connection that does not answer is presumed dead; the reconnect settles the state.
                self?.connection?.close("no answer within \(Self.answerWithin) s")
            }
            let (sql, parameters) = Self.statement(for: write)
            connection.query(sql, parameters) { [self] result in
                switch result {
                case .success(let rows):
                    guard let seq = rows.integer(0, 0) else {
                        deadline.cancel()
                        if case .insert = write {
                            answer.call(.failure(.storage("the insert returned no row")))
                        } else {
                            answer.call(.failure(.notFound(id: Self.id(of: write))))
                        }
                        return
                    }
                    let todo = Self.todo(rows, offset: 1)
                    // Committed: answer once applied here, or at the deadline anyway (never 503 now).
                    deadline.cancel()
                    let late = loop.schedule(after: 1) { answer.call(.success(todo)) }
                    waiting.append(
                        (
                            seq,
                            {
                                late.cancel(); answer.call(.success(todo))
                            }
                        ))
                    catchUp()
                case .failure(let error):
                    deadline.cancel()
                    if error.kind == .outcomeUnknown {
                        Log.error("postgres: connection lost during a write; outcome unknown: \(error)")
                    }
                    if error.kind == .refused, error.sqlState == "57014" {
                        answer.call(.failure(.unavailable("PostgreSQL did not commit in time")))
                    } else if error.kind == .refused {
                        answer.call(.failure(.storage(error.description)))
                    } else {
                        answer.call(.failure(.unavailable(error.description)))
                    }
                }
            }
        }
    }

    private static func id(of write: Write) -> Int {
        switch write {
        case .insert: 0
        case .update(let id, _, _), .delete(let id): id
        }
    }

    /// The one statement of a write: the counter locked first (commit order), the todo row, the entry,
    /// the wake-up. For an update or delete of a missing id nothing is written and no row comes back.
    private static func statement(for write: Write) -> (String, [String?]) {
        let notify = "pg_notify('\(channel)', '')"
        switch write {
        case .insert(let title, let completed):
            return (
                """
                WITH seq AS (UPDATE livestate_counter SET last_id = last_id + 1 RETURNING last_id),
                todo AS (INSERT INTO todos (title, completed) SELECT $1, $2::boolean FROM seq
                         RETURNING id, title, completed),
                ev AS (INSERT INTO livestate_events (id, topic, change)
                       SELECT seq.last_id, 'todos', json_build_object('op', 'upsert', 'todo',
                              json_build_object('id', todo.id, 'title', todo.title, 'completed', todo.completed))::text
                       FROM seq, todo RETURNING id)
                SELECT ev.id, todo.id, todo.title, todo.completed, \(notify) FROM ev, todo
                """, [title, completed ? "true" : "false"]
            )
        case .update(let id, let title, let completed):
            return (
                """
                WITH seq AS (UPDATE livestate_counter SET last_id = last_id + 1
                             WHERE EXISTS (SELECT 1 FROM todos WHERE id = $1::bigint) RETURNING last_id),
                todo AS (UPDATE todos SET title = COALESCE($2, title), completed = COALESCE($3::boolean, completed)
                         FROM seq WHERE todos.id = $1::bigint RETURNING todos.id, todos.title, todos.completed),
                ev AS (INSERT INTO livestate_events (id, topic, change)
                       SELECT seq.last_id, 'todos', json_build_object('op', 'upsert', 'todo',
                              json_build_object('id', todo.id, 'title', todo.title, 'completed', todo.completed))::text
                       FROM seq, todo RETURNING id)
                SELECT ev.id, todo.id, todo.title, todo.completed, \(notify) FROM ev, todo
                """, [String(id), title, completed.map { $0 ? "true" : "false" }]
            )
        case .delete(let id):
            return (
                """
                WITH seq AS (UPDATE livestate_counter SET last_id = last_id + 1
                             WHERE EXISTS (SELECT 1 FROM todos WHERE id = $1::bigint) RETURNING last_id),
                todo AS (DELETE FROM todos USING seq WHERE todos.id = $1::bigint RETURNING todos.id),
                ev AS (INSERT INTO livestate_events (id, topic, change)
                       SELECT seq.last_id, 'todos', json_build_object('op', 'delete', 'id', todo.id)::text
                       FROM seq, todo RETURNING id)
                SELECT ev.id, \(notify) FROM ev
                """, [String(id)]
            )
        }
    }

    private static func todo(_ rows: PostgresRows, offset: Int) -> Todo? {
        guard rows.rows.first?.count ?? 0 >= offset + 3, let id = rows.integer(0, offset) else { return nil }
        let row = rows.rows[0]
        return Todo(id: Int(id), title: row[offset + 1] ?? "", completed: row[offset + 2] == "t")
    }

    // MARK: Following

    /// Reads and applies the entries after the last applied one; one query at a time (a wake-up during a
    /// query causes one more query, not one each).
    private func catchUp() {
        guard following != nil, let connection, connection.isReady else { return }
        guard !catchingUp else {
            catchUpAgain = true
            return
        }
        catchingUp = true
        catchUpAgain = false
        connection.query(
            "SELECT id, change FROM livestate_events WHERE id > $1::bigint ORDER BY id LIMIT 1000",
            [String(lastApplied)]
        ) { [self] result in
            catchingUp = false
            guard case .success(let rows) = result else { return }
            var entries: [Entry] = []
            for (index, row) in rows.rows.enumerated() {
                guard let seq = rows.integer(index, 0), seq > lastApplied else { continue }
                guard let change = row[1].flatMap(Self.change) else {
                    Log.error("postgres: journal entry \(seq) cannot be read; skipped")
                    lastApplied = seq
                    continue
                }
                entries.append(Entry(seq: seq, change: change))
                lastApplied = seq
            }
            if !entries.isEmpty { following?(entries) }
            let applied = lastApplied
            let ready = waiting.filter { $0.seq <= applied }
            waiting.removeAll { $0.seq <= applied }
            for waiter in ready { waiter.done() }
            if rows.rows.count == 1000 || catchUpAgain { catchUp() }
        }
    }

    private struct StoredChange: Decodable {
        var op: String
        var todo: Todo?
        var id: Int?
    }

    private static func change(_ json: String) -> TodoChange? {
        guard let stored = try? JSONDecoder().decode(StoredChange.self, from: Data(json.utf8)) else { return nil }
        switch (stored.op, stored.todo, stored.id) {
        case ("upsert", let todo?, _): return .upsert(todo)
        case ("delete", _, let id?): return .delete(id: id)
        default: return nil
        }
    }

    /// Keeps the journal bounded: one instance at a time (an advisory lock) deletes all but the newest
    /// 100,000 entries. An instance's memory holds far fewer, so no resume it can serve needs a deleted one.
    private func prune() {
        guard let connection, connection.isReady else { return }
        connection.query(
            """
            WITH lock AS (SELECT pg_try_advisory_xact_lock(7428002) AS held)
            DELETE FROM livestate_events USING lock
            WHERE lock.held AND id < (SELECT last_id FROM livestate_counter) - 100000
            """
        ) { result in
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
                connection.onNotification = { [weak self] _ in self?.catchUp() }
                connection.onClose = { [weak self] error in self?.lost(error) }
                connection.query("SET statement_timeout = '3s'") { _ in }
                // NB: the writes' CTEs are estimated far above one row: JIT compiled each (1–3 s of CPU).
                connection.query("SET jit = off") { _ in }
                connection.query("LISTEN \(Self.channel)") { _ in }
                ready?()
                catchUp()
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
        guard !stopped else { return }
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
            connection.query(
                """
                SELECT c.last_id, t.id, t.title, t.completed
                FROM livestate_counter c LEFT JOIN todos t ON true ORDER BY t.id
                """
            ) { [self] result in
                guard case .success(let rows) = result, let lastSeq = rows.integer(0, 0) else {
                    Log.error("postgres: cannot read the todos; retrying")
                    loop.schedule(after: 1) { [weak self] in self?.bootstrap(done) }
                    return
                }
                let todos = rows.rows.indices.compactMap { index -> Todo? in
                    guard let id = rows.integer(index, 1) else { return nil }
                    return Todo(id: Int(id), title: rows.rows[index][2] ?? "", completed: rows.rows[index][3] == "t")
                }
                done(Snapshot(todos: todos, lastSeq: lastSeq))
            }
        }
    }

    /// Version 1 of the schema. The counter starts above every clock-based event id given before
    /// (microseconds since 1970, divided by the 65,536 local ids each entry leaves room for).
    static let schema = """
        SELECT pg_advisory_xact_lock(7428001);
        CREATE TABLE IF NOT EXISTS livestate_schema (version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS todos (
            id BIGSERIAL PRIMARY KEY,
            title TEXT NOT NULL,
            completed BOOLEAN NOT NULL DEFAULT false
        );
        CREATE TABLE IF NOT EXISTS livestate_counter (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            last_id BIGINT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS livestate_events (
            id BIGINT PRIMARY KEY,
            topic TEXT NOT NULL,
            change TEXT NOT NULL,
            committed_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        WITH fresh AS (
            INSERT INTO livestate_counter (last_id)
            SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint / 65536 + 1
            WHERE NOT EXISTS (SELECT 1 FROM livestate_counter)
            RETURNING 1
        ), seeded AS (
            INSERT INTO todos (title, completed) SELECT 'Buy Milk', false FROM fresh RETURNING 1
        )
        INSERT INTO livestate_schema (version) SELECT 1 FROM seeded;
        """
}

/// Calls a completion at most once, whichever of the answer or the deadline comes first (on one loop).
private final class Once: @unchecked Sendable {
    // NB: @unchecked because it is used on the journal's loop only.
    private var completion: (@Sendable (Result<Todo?, TodoError>) -> Void)?

    init(_ completion: @escaping @Sendable (Result<Todo?, TodoError>) -> Void) {
        self.completion = completion
    }

    /// Calls the completion if it was not called yet; whether it was called now.
    @discardableResult
    func call(_ result: Result<Todo?, TodoError>) -> Bool {
        guard let completion else { return false }
        self.completion = nil
        completion(result)
        return true
    }
}

/// The snapshot handed from the loop to the thread waiting in `start`.
private final class SnapshotBox: @unchecked Sendable {
    // NB: @unchecked because the semaphore orders the write on the loop before the read.
    var value: PostgresJournal.Snapshot?
}
