package import Domain
import Support
import Synchronization

/// `Journal` on one SQLite file (docs/architecture-instances.md, "SQLite"): every input is committed with
/// its entry (`SQLiteEntries`, the table a data file's journal uses too) in one `BEGIN IMMEDIATE … COMMIT`
/// (`SQLiteTodoStore`), and the wake-up is a function call: the
/// entry is handed to `follow`'s handler before the completion runs, on the thread that committed it.
///
/// Writes are short: with a `writer` thread (the server's) each is committed, applied and answered there, in
/// order, so no event loop waits for a disk flush; without one (tests), at once, on the caller's thread. An
/// `Idempotency-Key` is kept in its write's entry (as on PostgreSQL), so a write sent again after a lost
/// answer — or after the server died between its commit and its answer — is applied once.
///
/// Two locks, never one across both jobs: `state` covers a commit (the SQL) and queues its entry; `delivery`
/// covers handing queued entries to the handler (the view models, encoding, `/events`), one thread at a
/// time, in id order. A writer delivers what is queued after its commit (its own entry, or nothing when
/// another writer already took it under `delivery`), so its entry is applied before it is answered, and a
/// slow delivery never holds a commit on another loop.
///
/// ```swift
/// let journal = try SQLiteJournal(path: "./livestate.sqlite")
/// let start = journal.start()
/// journal.follow(after: start.lastSeq) { entries in … }
/// journal.write(.insert(title: "Walk the dog", completed: false), key: nil) { result in … }   // answered after the commit
/// ```
package final class SQLiteJournal: Journal {
    private struct State {
        var handler: (@Sendable ([JournalEntry]) -> Void)?
        /// The todos in the file, kept under the same lock as the commits: `maxTodos` holds exactly.
        var todoCount: Int
        /// Entries committed and not yet handed to the handler, in id order.
        var undelivered: [JournalEntry] = []
    }

    /// The file: the todos, the journal, the counter.
    package let store: SQLiteTodoStore
    private let snapshot: JournalSnapshot
    private let state: Mutex<State>
    /// Held while entries are handed to the handler, so one thread delivers at a time, in id order.
    private let delivery = Mutex<Void>(())
    /// The id of the last entry handed over (read by `whenApplied` without waiting for a delivery).
    private let lastApplied: Atomic<Int64>
    /// The most todos an insert may leave in the file (`--max-todos`).
    private let maxTodos: Int
    /// The thread that commits (nil: the caller's).
    private let writer: BackgroundThread?

    /// Opens or creates the file at `path` (`:memory:` keeps nothing on disk), keeping the newest
    /// `retention` entries and refusing an insert beyond `maxTodos` todos; a file that cannot be used throws
    /// (the server does not start on it). With `writer`, writes and inputs are committed (and applied, and
    /// answered) on that thread, so an event loop that calls `write` never waits for the disk flush.
    package init(
        path: String, retention: Int = 100_000, maxTodos: Int = TaskListViewModel.defaultMaxCount,
        writer: BackgroundThread? = nil
    ) throws(JournalError) {
        self.writer = writer
        store = try SQLiteTodoStore(path: path, retention: retention)
        // NB: the block after `startSeq` is this run's, so its events that are not journaled repeat no id.
        snapshot = JournalSnapshot(todos: try store.all(), lastSeq: store.startSeq)
        state = Mutex(State(todoCount: snapshot.todos.count))
        lastApplied = Atomic(store.startSeq)
        self.maxTodos = maxTodos
    }

    /// The todos read when the file was opened, at the id this run took (`SQLiteTodoStore.startSeq`).
    package func start() -> JournalSnapshot { snapshot }

    /// One process writes the file, so nothing is committed that this journal does not deliver itself:
    /// `handler` hears each entry as it commits.
    package func follow(after seq: Int64, _ handler: @escaping @Sendable ([JournalEntry]) -> Void) {
        delivery.withLock { _ in
            lastApplied.store(max(lastApplied.load(ordering: .acquiring), seq), ordering: .releasing)
            state.withLock { $0.handler = handler }
        }
    }

    /// Commits `write` and its entry under `key` (the client's `Idempotency-Key`, kept in the entry), applies
    /// the entry, then answers. A write sent again with the key of one that committed, also after a restart,
    /// is answered with the todo that one wrote and changes nothing (`.keyReused` when that one was another
    /// input). An insert when the file holds `maxTodos` todos is refused (`.full`) under the commit's lock, so
    /// adds on several loops at once cannot pass the limit; an update or delete of an unknown id is `.notFound`.
    package func write(
        _ write: TodoWrite, key: String?,
        completion: @escaping @Sendable (Result<TodoWriteOutcome, JournalError>) -> Void
    ) {
        onWriter { [self] in commit(write, key: key, completion: completion) }
    }

    private func commit(
        _ write: TodoWrite, key: String?,
        completion: @escaping @Sendable (Result<TodoWriteOutcome, JournalError>) -> Void
    ) {
        let result = committing { (state: inout State) throws(JournalError) -> SQLiteCommit<Todo?> in
            if case .insert = write, state.todoCount >= maxTodos {
                // NB: a repeat of an insert that committed changes nothing, so the limit does not refuse it.
                guard let first = try key.flatMap({ key throws(JournalError) in try store.entry(key: key) }) else {
                    return .unchanged
                }
                return .repeated(first)
            }
            let commit = try store.commit(write, key: key)
            if case .committed = commit {
                switch write {
                case .insert: state.todoCount += 1
                case .delete: state.todoCount -= 1
                case .update: break
                }
            }
            return commit
        } entry: { todo, seq in
            // NB: `commit` answers the todo of every insert and update, and nil for a delete.
            JournalEntry(seq: seq, change: JournalChange(todo.map { .upsert($0) } ?? .delete(id: Self.id(of: write))))
        }
        switch result {
        case .success(.committed(let todo, _)): completion(.success(.committed(todo)))
        case .success(.unchanged):
            // NB: an insert is unchanged only when the list is full; an update or delete when the id is unknown.
            if case .insert = write { return completion(.success(.full(limit: maxTodos))) }
            completion(.success(.notFound(id: Self.id(of: write))))
        case .success(.repeated(let first)):
            guard first.topic == "todos" else { return completion(.failure(.keyReused)) }
            var todo: Todo?
            if case .upsert(let upserted)? = first.change.todoChange { todo = upserted }
            completion(.success(.committed(todo)))
        case .failure(let error): completion(.failure(error))
        }
    }

    /// Commits one entry of `topic`, applies it, then answers its id.
    package func append(
        topic: String, json: String, completion: @escaping @Sendable (Result<Int64, JournalError>) -> Void
    ) {
        append(topic: topic, json: json, key: nil) { completion($0.map(\.seq)) }
    }

    /// Commits one entry of `topic` under `key` (kept in the entry), applies it, then answers its id; when
    /// `key` was committed before (also by an earlier run) that entry, `repeated` with its JSON, and nothing
    /// is written (`.keyReused` when that entry is of another topic).
    package func append(
        topic: String, json: String, key: String?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        onWriter { [self] in commit(topic: topic, json: json, key: key, completion: completion) }
    }

    private func commit(
        topic: String, json: String, key: String?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        let result = committing { (_: inout State) throws(JournalError) -> SQLiteCommit<Void> in
            try store.append(topic: topic, json: json, key: key)
        } entry: { _, seq in
            JournalEntry(seq: seq, change: .input(topic: topic, json: json))
        }
        switch result {
        case .success(.committed(_, let seq)): completion(.success(JournalAppended(seq: seq)))
        case .success(.repeated(let first)):
            guard first.topic == topic else { return completion(.failure(.keyReused)) }
            completion(
                .success(JournalAppended(seq: first.seq, repeated: true, first: first.change.document ?? "")))
        case .success(.unchanged): completion(.failure(.failed("the entry was not written")))
        case .failure(let error): completion(.failure(error))
        }
    }

    /// The newest entry of `topic`, answered at once.
    package func latest(
        topic: String, _ completion: @escaping @Sendable (Result<(seq: Int64, json: String)?, JournalError>) -> Void
    ) {
        completion(Result { () throws(JournalError) in try store.latest(topic: topic) })
    }

    /// Every entry committed is applied before its write returns: an id above the last one was never
    /// given by this file (`done(false)` at once).
    package func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) {
        done(seq <= lastApplied.load(ordering: .acquiring))
    }

    /// Every write has committed before it was answered; at shutdown the WAL is copied into the file (as
    /// closing the last connection does) and the handler dropped (it holds the server's models).
    package func stop() {
        state.withLock { $0.handler = nil }
        store.checkpoint()
    }

    /// The newest rows (every topic), newest first, within `limit` rows and `bytes` of JSON; none when the
    /// file cannot be read (logged: the server then starts without the earlier events).
    package func recent(limit: Int, bytes: Int) -> [JournalRow] {
        do {
            return try store.recent(limit: limit, bytes: bytes)
        } catch {
            Log.error("sqlite: the journal's recent entries cannot be read (\(error)); earlier events are not replayed")
            return []
        }
    }

    /// Runs `commit` under `state` and queues the entry of what it committed (`entry`, from its result and
    /// id) in id order, then delivers what is queued under `delivery`: when this returns, the entry is
    /// applied (by this thread, or by the one that delivered it first).
    private func committing<T>(
        _ commit: (inout State) throws(JournalError) -> SQLiteCommit<T>,
        entry: (T, Int64) -> JournalEntry
    ) -> Result<SQLiteCommit<T>, JournalError> {
        let result = state.withLock { state -> Result<SQLiteCommit<T>, JournalError> in
            do throws(JournalError) {
                let commit = try commit(&state)
                if case .committed(let result, let seq) = commit { state.undelivered.append(entry(result, seq)) }
                return .success(commit)
            } catch {
                return .failure(error)
            }
        }
        if case .success(.committed) = result { deliverQueued() }
        return result
    }

    /// Runs `work` on the writer thread, or now on the caller's when there is none.
    private func onWriter(_ work: @escaping @Sendable () -> Void) {
        if let writer { writer.submit(work) } else { work() }
    }

    /// Hands every queued entry to the handler, in id order, one delivering thread at a time.
    private func deliverQueued() {
        delivery.withLock { _ in
            // NB: taken under `delivery`, so a batch taken later is handed over later: id order holds.
            let (entries, handler) = state.withLock { state in
                defer { state.undelivered.removeAll(keepingCapacity: true) }
                return (state.undelivered, state.handler)
            }
            guard let last = entries.last else { return }
            handler?(entries)
            lastApplied.store(last.seq, ordering: .releasing)
        }
    }

    private static func id(of write: TodoWrite) -> Int {
        switch write {
        case .insert: 0
        case .update(let id, _, _), .delete(let id): id
        }
    }
}
