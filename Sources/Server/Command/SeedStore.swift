import Dispatch
import Domain
import HTTP
import Reactive
import Storage
import StrictJSON
import Support
import Synchronization

/// The seeds' storage on an SQLite file (or `:memory:`) through the one write path a data file's resources
/// take: a `DocumentStore` over a journal that holds its items (`SQLiteDocumentJournal`, `.items`). The todos
/// are its collection `todos`, and each other input (`SeedInput.Topic`) a singular resource of it. A todo
/// write is a plan judged on the batch's view by the task list's own judgement (`TaskListViewModel.judge`:
/// the title rule, `--max-todos` exactly, an unknown id), so a batch of writes commits with one disk flush;
/// each resource sends its committed entries, in journal order, into its own view model's input
/// (`deliverTodos`, `deliver(_:to:)`) on its view model's thread (`SeedDeliveries`), and a write is answered
/// once its view model's entries up to it are in: the next batch commits while a view model is still busy
/// with the one before, and a slow delivery into one view model holds no write of another.
///
/// The seeds' inputs (`SeedInputs`, `SelectionDownloads`) commit through `append`, the restart reads
/// `recent` (`SeedRewind`), and the todo routes submit their plans here (`submitTodo`).
///
/// ```swift
/// let store = try SeedStore(path: "livestate.sqlite", retention: 100_000, maxTodos: 1000)
/// store.deliverTodos { committed in models.todos.committed.send(committed) }
/// store.follow()
/// store.submitTodo(.insert(title: "Walk the dog", completed: false), key: nil, answer: answer) { respond($0) }
/// ```
final class SeedStore: Sendable {
    /// The journal's engine, for what the store asks of it beyond `DocumentJournal`.
    private enum Engine {
        case sqlite(SQLiteDocumentJournal)
        /// With the start's newest entries, as the seeds' replay reads them.
        case postgres(PostgresDocumentJournal, recent: [JournalRow])
    }

    private let engine: Engine
    private let store: DocumentStore
    private let snapshot: JournalSnapshot
    /// The todos, and each other input by its name: where their committed entries are sent.
    private let todos: HeldTodos
    private let inputs: [String: HeldInput]
    /// Where committed entries are sent into the view models, each view model's in journal order, and then
    /// each write answered: off the write thread, so a slow view model does not hold the next batch's commit.
    private let deliveries: SeedDeliveries
    /// The largest todo id the file has held: a new todo's id is above it and every id a batch took.
    private let largestTodoID: Int64
    private let maxTodos: Int

    /// Opens or creates the store at `path` (`:memory:` keeps nothing on disk; a seeds' file of an earlier
    /// version migrates in place), keeping the newest `retention` entries and at most `maxTodos` todos; a file
    /// that cannot be used throws (the server does not start on it).
    convenience init(path: String, retention: Int, maxTodos: Int) throws(JournalError) {
        let journal = try SQLiteDocumentJournal(path: path, retention: retention, holding: .items)
        let current = try journal.current()
        self.init(engine: .sqlite(journal), seq: journal.startSeq, resources: current.resources, maxTodos: maxTodos)
    }

    /// Opens the seeds' PostgreSQL database at `uri` (a new one gets the first todo; one of an older LiveState
    /// migrates in place), which several servers share.
    convenience init(postgres uri: String, retention: Int, maxTodos: Int) throws {
        let journal = try PostgresDocumentJournal(uri: uri, retention: retention, dataSet: .seeds)
        let start = try journal.start(source: "the seeds", recent: (EventLog.defaultCount, 2 * EventLog.defaultBytes)) {
            [DocumentRows(name: JournalChange.todos, kind: .collection, items: [("1", Self.firstTodo)])]
                + SeedInput.Topic.allCases.map { DocumentRows(name: $0.rawValue, kind: .singular, items: []) }
        }
        self.init(
            engine: .postgres(journal, recent: PlacedItems.itemsBefore(start.recent)), seq: start.seq,
            resources: start.resources, maxTodos: maxTodos)
    }

    private static let firstTodo = JournalChange(TodoChange.upsert(Todo(id: 1, title: "Buy Milk"))).document ?? ""

    private init(engine: Engine, seq: Int64, resources current: [DocumentRows], maxTodos: Int) {
        self.engine = engine
        let journal: any DocumentJournal =
            switch engine {
            case .sqlite(let journal): journal
            case .postgres(let journal, _): journal
            }
        let rows = Dictionary(current.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let todoRows = rows[JournalChange.todos]?.items ?? []
        let todos = todoRows.compactMap { row -> Todo? in
            guard
                case .upsert(let todo)? = JournalChange(
                    collection: JournalChange.todos, id: row.key, document: row.body
                )
                .todoChange
            else { return nil }
            return todo
        }
        largestTodoID = max(rows[JournalChange.todos]?.largestID ?? 0, Int64(todos.map(\.id).max() ?? 0))
        self.maxTodos = maxTodos
        snapshot = JournalSnapshot(todos: todos, lastSeq: seq)
        let deliveries = SeedDeliveries(delivered: seq)
        self.deliveries = deliveries
        self.todos = HeldTodos(todos, deliveries: deliveries)
        var inputs: [String: HeldInput] = [:]
        for topic in SeedInput.Topic.allCases {
            let held = rows[topic.rawValue]?.items.first.flatMap { Self.object($0.body) }
            inputs[topic.rawValue] = HeldInput(name: topic.rawValue, value: held, deliveries: deliveries)
        }
        self.inputs = inputs
        store = DocumentStore(
            resources: [], others: [self.todos] + SeedInput.Topic.allCases.compactMap { inputs[$0.rawValue] },
            journal: journal, appliedSeq: seq, idField: "id", foreignKeySuffix: "Id")
    }

    func start() -> JournalSnapshot { snapshot }

    /// Sends each committed todo change into `input` (the task list's), with its entry's id.
    func deliverTodos(to input: @escaping @Sendable (Committed<TodoChange>) -> Void) {
        todos.input.withLock { $0.call = input }
    }

    /// Sends each committed value of `topic` into `input` (its view model's), with its entry's id.
    func deliver(_ topic: SeedInput.Topic, to input: @escaping @Sendable (Int64, SeedInput.Payload) -> Void) {
        inputs[topic.rawValue]?.input.withLock { $0.call = { input($0.seq, $0.payload) } }
    }

    /// Sends entries read from the journal (the newest, undone at start: `SeedRewind`) into their inputs
    /// again, oldest first, as if just committed; returns once they are in. A todo keeps the value this store
    /// holds when the entry left it so.
    func replay(_ entries: [JournalEntry]) {
        let (todos, inputs) = (todos, inputs)
        for entry in entries {
            // NB: one at a time, each on its view model's thread: the events they make come in journal order.
            deliveries.run(on: SeedDeliveries.Lane(resource: entry.change.collection)) {
                guard entry.change.collection == JournalChange.todos else {
                    inputs[entry.change.collection]?.deliver(seq: entry.seq, json: entry.change.document)
                    return
                }
                guard let change = entry.change.todoChange else {
                    return Log.error("journal: entry \(entry.seq) of todos does not hold a todo; skipped")
                }
                todos.input.withLock { $0.call }?(Committed(seq: entry.seq, change: todos.held(change)))
            }
        }
    }

    /// Hands `call` each newest entry up to which every entry is in its view model (from the start's last
    /// entry on), before the `whenApplied` callers it releases: the event hub, which publishes an entry's
    /// events once every entry before it is in (`EventHub.delivered(through:)`).
    func onDelivered(_ call: @escaping @Sendable (Int64) -> Void) {
        deliveries.onAdvance(call)
    }

    /// Follows the commits of the other servers on the database (PostgreSQL), once every input is set and the
    /// start's entries replayed; one process writes an SQLite file.
    func follow() {
        if case .postgres(let journal, _) = engine { journal.follow { [store] in store.catchUp() } }
    }

    /// Submits a todo write under `key` (the client's `Idempotency-Key`): `answer` makes its response from
    /// what it did (also for a write sent again with a key that committed, from that write's entry), and
    /// storage's refusal is answered as the contract says.
    func submitTodo(
        _ write: TodoWrite, key: String?, answer: @escaping @Sendable (TodoWriteOutcome) -> Response,
        refusal: (@Sendable (JournalError) -> Response)? = nil,
        respond: @escaping @Sendable (Response) -> Void
    ) {
        let refusal = refusal ?? { [engine] in Response(error: Self.seeds($0, engine)) }
        let respond = answeredAfterDelivery(on: .todos, respond)
        let keyed = (key ?? (store.isShared ? WriteKey.serverMade() : nil)).map { key in
            DocumentStore.Keyed(key: WriteKey(key: key, request: JournalChange.todos)) { first in
                if case .upsert(let todo)? = first.todoChange { return answer(.committed(todo)) }
                return answer(.committed(nil))
            }
        }
        store.submit(
            { [largestTodoID, maxTodos] view throws(HTTPError) in
                let (outcome, todo) = try Self.judge(write, on: view, largest: largestTodoID, maxTodos: maxTodos)
                let entries: [DocumentStore.Planned] =
                    switch (outcome, write) {
                    case (.committed, .delete(let id)):
                        [.init(resource: JournalChange.todos, id: Self.id(id), document: nil)]
                    case (.committed, _):
                        todo.map { todo in
                            [.init(resource: JournalChange.todos, id: todo.id, document: todo.object)]
                        } ?? []
                    default: []
                    }
                return .init(entries: entries, response: answer(outcome), boundsItems: false)
            }, keyed: keyed, refusal: refusal, respond: respond)
    }

    /// What a todo write does on the batch's view, as the task list judges it (`TaskListViewModel.judge`,
    /// the one judgement: its title rule, `--max-todos`, an unknown id): the outcome, and the todo it writes.
    /// A title the rule refuses (the routes refuse it before) is answered as the routes answer it.
    private static func judge(
        _ write: TodoWrite, on view: DocumentView, largest: Int64, maxTodos: Int
    ) throws(HTTPError) -> (TodoWriteOutcome, StoredDocument?) {
        let todos = JournalChange.todos
        let judged = TaskListViewModel.judge(
            write, count: view.count(todos), maxCount: maxTodos,
            nextID: Int(max(view.counters.maxID[todos] ?? 0, largest) + 1)
        ) { id in Self.todo(view.document(todos, Self.id(id))) }
        switch judged {
        case .success(.upsert(let todo)): return (.committed(todo), stored(todo))
        case .success: return (.committed(nil), nil)
        case .failure(.tooManyTodos(let limit)): return (.full(limit: limit), nil)
        case .failure(.notFound(let id)): return (.notFound(id: id), nil)
        case .failure(let refusal): throw HTTPError(refusal.status, refusal.code, refusal.message)
        }
    }

    /// A todo write from `addNewTask` (no request to answer): a refusal is logged.
    func write(
        _ write: TodoWrite, key: String?,
        completion: @escaping @Sendable (Result<TodoWriteOutcome, JournalError>) -> Void
    ) {
        let outcome = Mutex<Result<TodoWriteOutcome, JournalError>?>(nil)
        submitTodo(
            write, key: key,
            answer: { done in
                outcome.withLock { $0 = .success(done) }
                return .noContent
            },
            refusal: { [engine] error in
                outcome.withLock { $0 = .failure(Self.seeds(error, engine)) }
                return Response(error: Self.seeds(error, engine))
            }
        ) { _ in completion(outcome.withLock { $0 } ?? .failure(.failed("the write was not answered"))) }
    }

    func append(topic: String, json: String, completion: @escaping @Sendable (Result<Int64, JournalError>) -> Void) {
        append(topic: topic, json: json, key: nil) { completion($0.map(\.seq)) }
    }

    /// Commits `json` as the resource `topic`'s new value under `key`; `completion` gets its id once applied
    /// here, or the first request's entry (`repeated`) when the key was committed before.
    func append(
        topic: String, json: String, key: String?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        append(topic: topic, json: json, key: key, claimed: nil, completion: completion)
    }

    /// The journal's download claims when several servers share it (PostgreSQL); nil for one process.
    var claims: (any DocumentDownloadClaims)? {
        if case .postgres(let journal, _) = engine { return journal }
        return nil
    }

    /// Commits an album selection as `append` does, taking its download claim in the commit's transaction
    /// (`claims`); `claimed` gets its id, before it is applied here, when the claim was taken (not for a key
    /// committed before).
    func appendClaimed(
        topic: String, json: String, key: String?, claimed: @escaping @Sendable (Int64) -> Void,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        append(topic: topic, json: json, key: key, claimed: claimed, completion: completion)
    }

    /// Commits `entry` as `append(topic:json:key:completion:)` does `json`'s object, its bytes as they are.
    func append(
        topic: String, entry: SeedInput.Entry, key: String?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        append(topic: topic, entry: entry, key: key, claimed: nil, completion: completion)
    }

    private func append(
        topic: String, json: String, key: String?, claimed: (@Sendable (Int64) -> Void)?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        // NB: encoded here, on the caller's thread, so the write thread only writes its bytes.
        guard let entry = Self.entry(json) else { return completion(.failure(.failed("the input is not an object"))) }
        append(topic: topic, entry: entry, key: key, claimed: claimed, completion: completion)
    }

    private func append(
        topic: String, entry: SeedInput.Entry, key: String?, claimed: (@Sendable (Int64) -> Void)?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        let completion = answeredAfterDelivery(on: SeedDeliveries.Lane(resource: topic), completion)
        let outcome = Mutex<Result<JournalAppended, JournalError>?>(nil)
        let keyed = (key ?? (store.isShared ? WriteKey.serverMade() : nil)).map { key in
            DocumentStore.Keyed(key: WriteKey(key: key, request: topic)) { [self] first in
                let seq = (try? self.keyed(key))?.entry.seq ?? 0
                outcome.withLock { $0 = .success(JournalAppended(seq: seq, repeated: true, first: first.document)) }
                return .noContent
            }
        }
        store.submit(
            { _ throws(HTTPError) in
                .init(
                    entries: [.init(resource: topic, id: nil, document: entry.object, body: entry.body)],
                    response: .noContent,
                    boundsItems: false,
                    answer: { seqs in
                        if let claimed, let seq = seqs.first { claimed(seq) }
                        outcome.withLock { $0 = .success(JournalAppended(seq: seqs.first ?? 0)) }
                        return .noContent
                    }, claim: claimed != nil)
            }, keyed: keyed,
            refusal: { [engine] error in
                outcome.withLock { $0 = .failure(Self.seeds(error, engine)) }
                return Response(error: Self.seeds(error, engine))
            }
        ) { _ in completion(outcome.withLock { $0 } ?? .failure(.failed("the entry was not written"))) }
    }

    /// The newest entry of `topic` still held, answered at once.
    func latest(
        topic: String, _ completion: @escaping @Sendable (Result<(seq: Int64, json: String)?, JournalError>) -> Void
    ) {
        completion(
            Result { () throws(JournalError) in
                try newest(of: topic).map { ($0.seq, $0.change.document ?? "") }
            })
    }

    /// SQLite: every entry committed is applied before its write is answered, so an id above the last one
    /// applied was never given by this file (`done(false)` at once). PostgreSQL: once a catch-up applied it.
    /// `done(true)` runs once every entry up to `seq` is in its view model (`delivered`), after the event hub
    /// published their events.
    func whenApplied(_ seq: Int64, timeout: Double, _ done: @escaping @Sendable (Bool) -> Void) {
        let deliveries = deliveries
        guard case .postgres = engine else {
            let applied = store.appliedSeq.withLock { $0 }
            return deliveries.whenDelivered(through: min(seq, applied)) { done(seq <= applied) }
        }
        store.whenApplied(seq, timeout: timeout) { applied in
            guard applied else { return done(false) }
            deliveries.whenDelivered(through: seq) { done(true) }
        }
    }

    func recent(limit: Int, bytes: Int) -> [JournalRow] {
        switch engine {
        case .sqlite(let journal):
            do {
                return try journal.recent(limit: limit, bytes: bytes)
            } catch {
                Log.error(
                    "sqlite: the journal's recent entries cannot be read (\(error)); earlier events are not replayed")
                return []
            }
        case .postgres(_, let recent):
            var rows: [JournalRow] = []
            var total = 0
            for row in recent.prefix(limit) {
                total += (row.change.document?.utf8.count ?? 0) + (row.before?.utf8.count ?? 0)
                guard rows.isEmpty || total <= bytes else { break }
                rows.append(row)
            }
            return rows
        }
    }

    /// `call` made to run on `lane`, after every entry committed before it is in that lane's view model: a
    /// write is answered once a request that follows it reads its change, whatever another view model is busy
    /// with.
    private func answeredAfterDelivery<Value: Sendable>(
        on lane: SeedDeliveries.Lane, _ call: @escaping @Sendable (Value) -> Void
    ) -> @Sendable (Value) -> Void {
        { [deliveries] value in deliveries.after(lane) { call(value) } }
    }

    /// Every write has committed before it was answered; SQLite's WAL is copied into the file, PostgreSQL's
    /// connection closed, and the inputs dropped (they hold the server's models).
    func stop() {
        todos.input.withLock { $0.call = nil }
        for input in inputs.values { input.input.withLock { $0.call = nil } }
        let done = DispatchSemaphore(value: 0)
        store.betweenBatches { [engine] in
            switch engine {
            case .sqlite(let journal): journal.checkpoint()
            case .postgres(let journal, _): journal.stop()
            }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 5)
        deliveries.drain(within: 5)
    }

    /// Storage's refusal as the seeds answer it: a commit the SQLite file refused is `storage_error`
    /// (docs/api.md), where a data file's journal says `storage_unavailable` for the same failure; PostgreSQL's
    /// refusals keep their codes (`storage_unavailable`, `storage_busy`, `storage_outcome_unknown`).
    private static func seeds(_ error: JournalError, _ engine: Engine) -> JournalError {
        guard case .sqlite = engine, case .unavailable(let reason) = error else { return error }
        return .failed(reason)
    }

    private func keyed(_ key: String) throws(JournalError) -> KeyedEntry? {
        switch engine {
        case .sqlite(let journal): try journal.keyed([key])[key]
        case .postgres(let journal, _): try journal.keyed([key])[key]
        }
    }

    private func newest(of topic: String) throws(JournalError) -> JournalEntry? {
        switch engine {
        case .sqlite(let journal): try journal.newest(of: topic)
        case .postgres(let journal, _): try journal.newest(of: topic)
        }
    }
}
