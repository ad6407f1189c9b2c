package import Domain
import HTTP
import Synchronization

/// `Journal` on one SQLite file (docs/architecture-instances.md, "SQLite"): every input is committed with
/// its entry in one `BEGIN IMMEDIATE … COMMIT` (`SQLiteTodoStore`), and the wake-up is a function call: the
/// entry is handed to `follow`'s handler before the completion runs, on the calling thread.
///
/// Writes are short and synchronous, so every completion runs at once, on the caller's thread. One lock
/// covers a commit and the delivery of its entry, so entries reach the handler in id order even when
/// several loops write at once.
///
/// ```swift
/// let journal = try SQLiteJournal(path: "./livestate.sqlite")
/// let start = journal.start()
/// journal.follow(after: start.lastSeq) { entries in … }
/// journal.write(.insert(title: "Walk the dog", completed: false), key: nil) { result in … }   // answered now
/// ```
package final class SQLiteJournal: Journal {
    private struct State {
        var lastApplied: Int64
        var handler: (@Sendable ([JournalEntry]) -> Void)?
        /// The todos in the file, kept under the same lock as the commits: `maxTodos` holds exactly.
        var todoCount: Int
    }

    /// The file: the todos, the journal, the counter.
    package let store: SQLiteTodoStore
    private let snapshot: JournalSnapshot
    private let state: Mutex<State>
    /// The most todos an insert may leave in the file (`--max-todos`).
    private let maxTodos: Int

    /// Opens or creates the file at `path` (`:memory:` keeps nothing on disk), keeping the newest
    /// `retention` entries and refusing an insert beyond `maxTodos` todos; a file that cannot be used throws
    /// (the server does not start on it).
    package init(
        path: String, retention: Int = 100_000, maxTodos: Int = TaskListViewModel.defaultMaxCount
    ) throws(TodoStoreError) {
        store = try SQLiteTodoStore(path: path, retention: retention)
        // NB: the block after `startSeq` is this run's, so its events that are not journaled repeat no id.
        snapshot = JournalSnapshot(todos: try store.all(), lastSeq: store.startSeq)
        state = Mutex(State(lastApplied: store.startSeq, todoCount: snapshot.todos.count))
        self.maxTodos = maxTodos
    }

    /// The todos read when the file was opened, at the id this run took (`SQLiteTodoStore.startSeq`).
    package func start() -> JournalSnapshot { snapshot }

    /// One process writes the file, so nothing is committed that this journal does not deliver itself:
    /// `handler` hears each entry as it commits.
    package func follow(after seq: Int64, _ handler: @escaping @Sendable ([JournalEntry]) -> Void) {
        state.withLock { state in
            state.lastApplied = max(state.lastApplied, seq)
            state.handler = handler
        }
    }

    /// Commits `write` and its entry, applies the entry, then answers. `key` is not stored: a write here
    /// is committed or refused before it is answered, so there is no unknown outcome for a key to settle.
    /// An insert when the file holds `maxTodos` todos is refused (`.tooManyTodos`) under the commit's lock,
    /// so adds on several loops at once cannot pass the limit.
    package func write(
        _ write: TodoWrite, key: String?, completion: @escaping @Sendable (Result<Todo?, TodoError>) -> Void
    ) {
        let result = committing { (state: inout State) throws(TodoError) -> (Todo?, JournalEntry)? in
            if case .insert = write, state.todoCount >= maxTodos { throw .tooManyTodos(limit: maxTodos) }
            guard let (todo, seq) = try Self.stored({ () throws(TodoStoreError) in try store.commit(write) }) else {
                return nil
            }
            switch write {
            case .insert: state.todoCount += 1
            case .delete: state.todoCount -= 1
            case .update: break
            }
            // NB: `commit` answers the todo of every insert and update, and nil for a delete.
            let change: TodoChange = todo.map { .upsert($0) } ?? .delete(id: Self.id(of: write))
            return (todo, JournalEntry(seq: seq, change: .todo(change)))
        }
        switch result {
        case .success(nil): completion(.failure(.notFound(id: Self.id(of: write))))
        case .success(let (todo, _)?): completion(.success(todo))
        case .failure(let error): completion(.failure(error))
        }
    }

    /// Commits one entry of `topic`, applies it, then answers its id.
    package func append(
        topic: String, json: String, completion: @escaping @Sendable (Result<Int64, TodoError>) -> Void
    ) {
        let result = committing { (_: inout State) throws(TodoError) -> (Int64, JournalEntry)? in
            let seq = try Self.stored { () throws(TodoStoreError) in try store.append(topic: topic, json: json) }
            return (seq, JournalEntry(seq: seq, change: .input(topic: topic, json: json)))
        }
        completion(result.flatMap { $0.map { .success($0.0) } ?? .failure(.storage("the entry was not written")) })
    }

    /// The newest entry of `topic`, answered at once.
    package func latest(
        topic: String, _ completion: @escaping @Sendable (Result<(seq: Int64, json: String)?, TodoError>) -> Void
    ) {
        do {
            completion(.success(try store.latest(topic: topic)))
        } catch {
            completion(.failure(.storage(error.description)))
        }
    }

    /// Every entry committed is applied before its write returns: an id above the last one was never
    /// given by this file (`done(false)` at once).
    package func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) {
        done(seq <= state.withLock { $0.lastApplied })
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

    /// Runs `commit` and delivers the entry it returns under one lock: entries reach the handler in id
    /// order. The handler runs under the lock on purpose (as the view model emits under its own).
    private func committing<T>(
        _ commit: (inout State) throws(TodoError) -> (T, JournalEntry)?
    ) -> Result<(T, JournalEntry)?, TodoError> {
        state.withLock { state in
            do throws(TodoError) {
                guard let (result, entry) = try commit(&state) else { return .success(nil) }
                state.lastApplied = entry.seq
                state.handler?([entry])
                return .success((result, entry))
            } catch {
                return .failure(error)
            }
        }
    }

    /// What the store answers; its failure as the error a client gets (`.storage`).
    private static func stored<R>(_ body: () throws(TodoStoreError) -> R) throws(TodoError) -> R {
        do {
            return try body()
        } catch {
            throw .storage(error.description)
        }
    }

    private static func id(of write: TodoWrite) -> Int {
        switch write {
        case .insert: 0
        case .update(let id, _, _), .delete(let id): id
        }
    }
}
