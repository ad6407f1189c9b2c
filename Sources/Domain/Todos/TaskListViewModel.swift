package import Reactive
package import Support
import Synchronization

/// Seed 004's task list, on a journal: a read-only `tasks` publisher and an `addNewTask` input whose
/// `filter` is the title rule and whose `sink` hands the new task on to be committed; and a `committed`
/// input taking each change the journal committed, whose list (`versions`) carries the entry's id and the
/// exact change, with its place, to the snapshot, its event and the live queries.
///
/// The list changes only through `committed`: a write is first committed (the server's journal: SQLite or
/// PostgreSQL, shared by every instance), and the list shows it once its entry comes back, in journal order,
/// on every instance alike. So what `tasks` emits is always what storage holds.
///
/// The list is a `ChunkedList<Todo>`, read as the seed reads its array (`tasks.value.count`, `[row]`): the
/// snapshot, the encoder and the event hub each hold the list a write replaces, so applying the write
/// copies the chunk it touches, not the list.
///
/// Thread-safe: routes call it from several loop threads at once.
///
/// ```swift
/// let model = TaskListViewModel(todos: start.todos) { write in journal.write(write, key: nil) { _ in } }
/// model.tasks.sink { print($0.map(\.title)) }.store(in: &bag)   // ["Buy Milk"]
/// model.addNewTask.send("Walk the dog")                         // committed, then ["Buy Milk", "Walk the dog"]
/// try model.add(title: "Feed the cat") { write in … }           // the same path, committed by the caller
/// ```
package final class TaskListViewModel: Sendable {
    /// Hands one write on to be committed; the change comes back through `committed`.
    package typealias Commit = @Sendable (TodoWrite) -> Void

    /// The titles users want to add (seed 004); titles failing `TodoTitle` are dropped by the filter, and the
    /// sink hands the others on as inserts (`add(title:)` sends here and learns what the sink did).
    package let addNewTask = PassthroughSubject<String, Never>()

    /// Input: each change committed to the journal, with its journal id, in journal order (the server sends
    /// every applied entry here, on every instance).
    package let committed = PassthroughSubject<Committed<TodoChange>, Never>()

    /// The current tasks with the journal id of the change that made them (nil for the list at start) and
    /// that change (one todo inserted, updated or deleted, with its place; nil for the list at start or a
    /// list replaced whole); a new subscriber receives the current version first.
    package var versions: AnyPublisher<Versioned<ChunkedList<Todo>, ListChange<Todo>>, Never> {
        subject.eraseToAnyPublisher()
    }

    /// The current tasks, ordered by id; a new subscriber receives the current list first.
    package var tasks: AnyPublisher<ChunkedList<Todo>, Never> {
        subject.map(\.value).eraseToAnyPublisher()
    }

    /// The current tasks, ordered by id.
    package var currentTasks: ChunkedList<Todo> {
        subject.value.value
    }

    /// The most todos the list holds; an add beyond it is refused (`.tooManyTodos`), so the list (and each
    /// encoding of it) has a bound set by configuration, not by traffic.
    package let maxCount: Int

    /// `--max-todos`'s default.
    package static let defaultMaxCount = 10_000

    private let subject: CurrentValueSubject<Versioned<ChunkedList<Todo>, ListChange<Todo>>, Never>
    /// Where `addNewTask`'s inserts go when no `add(title:commit:)` is sending.
    private let commit: Commit
    /// Serialises the applying of committed changes and their emission.
    private let applying = Mutex<Void>(())
    private let subscriptions = Mutex<[AnyCancellable]>([])

    /// One `add(title:)` at a time, so that what the sink does belongs to the title just sent.
    private let adds = Mutex<Void>(())
    /// The add in progress: its `completed`, where its insert goes, and what the sink did with it.
    private let pending = Mutex<PendingAdd?>(nil)

    private struct PendingAdd {
        var completed: Bool
        var commit: Commit
        /// Set by the sink: handed on (nil) or refused.
        var outcome: Result<Void, TodoError>?
    }

    /// A list showing `todos` (ordered by id), as storage held them at start; `addNewTask`'s inserts go to
    /// `commit`. At most `maxCount` tasks are added (a list that already holds more keeps them, and takes no
    /// new ones).
    package init(todos: [Todo], maxCount: Int = TaskListViewModel.defaultMaxCount, commit: @escaping Commit) {
        self.maxCount = maxCount
        self.commit = commit
        subject = CurrentValueSubject(Versioned(seq: nil, change: nil, ChunkedList(todos)))
        let adding =
            addNewTask
            .filter(TodoTitle.isAcceptable)
            .map(TodoTitle.normalized)
            .sink { [weak self] title in self?.submit(title) }
        let applying = committed.sink { [weak self] entry in self?.apply(entry) }
        subscriptions.withLock { $0 += [adding, applying] }
    }

    /// Sends `title` into `addNewTask`; its sink hands the insert, `completed` as given, to `commit` (before
    /// this returns). The task shows in `tasks` once the journal committed it.
    ///
    /// - Throws: `.titleTooShort` / `.titleTooLong` / `.titleInvalid` when the filter dropped the title,
    ///   `.tooManyTodos` when the list holds `maxCount` tasks; then nothing was handed on.
    package func add(title: String, completed: Bool = false, commit: @escaping Commit) throws(TodoError) {
        // NB: the lock is held while sending on purpose. Reactive delivers a send that arrives while the sink
        // is busy on the thread already delivering, so what the sink did cannot be matched to its caller by
        // thread; one add at a time makes the recorded outcome this title's.
        let outcome = adds.withLock { _ -> Result<Void, TodoError>? in
            pending.withLock { $0 = PendingAdd(completed: completed, commit: commit) }
            addNewTask.send(title)
            return pending.withLock { pending in
                defer { pending = nil }
                return pending?.outcome
            }
        }
        guard let outcome else {
            // The filter dropped it: say why.
            _ = try TodoTitle.validated(title)
            preconditionFailure("a title that passes TodoTitle reached no sink: the filter and the rule differ")
        }
        try outcome.get()
    }

    /// The task with `id` (found by binary search: the list is ordered by id).
    package func todo(id: Int) -> Todo? {
        let todos = subject.value.value
        let index = TodoChange.index(of: id, in: todos)
        return index < todos.endIndex && todos[index].id == id ? todos[index] : nil
    }

    /// Hands on a change of the title (same rule as `addNewTask`) and/or completion of the task `id` to
    /// `commit`. Whether the task exists is the journal's to judge: another instance may have added it a
    /// moment ago.
    package func update(id: Int, title: String? = nil, completed: Bool? = nil, commit: Commit) throws(TodoError) {
        let newTitle: String?
        if let title { newTitle = try TodoTitle.validated(title) } else { newTitle = nil }
        commit(.update(id: id, title: newTitle, completed: completed))
    }

    /// Hands on the deletion of the task `id` to `commit`.
    package func delete(id: Int, commit: Commit) {
        commit(.delete(id: id))
    }

    /// The one judgement of a todo write, which `addNewTask`'s sink asks of this list and storage's plan of the
    /// list it commits to (exact under concurrent writes): the change `write` makes to a list of `count`
    /// todos in which `todo` finds a todo by its id, an insert taking the id `nextID`; or why it is refused:
    /// a title `addNewTask`'s filter drops (`TodoTitle`), a list already holding `maxCount` todos, an id the
    /// list does not hold.
    package static func judge(
        _ write: TodoWrite, count: Int, maxCount: Int, nextID: Int, todo: (Int) -> Todo?
    ) -> Result<TodoChange, TodoError> {
        do throws(TodoError) {
            switch write {
            case .insert(let title, let completed):
                let title = try TodoTitle.validated(title)
                guard count < maxCount else { throw .tooManyTodos(limit: maxCount) }
                return .success(.upsert(Todo(id: nextID, title: title, completed: completed)))
            case .update(let id, let title, let completed):
                guard let before = todo(id) else { throw .notFound(id: id) }
                let title = try title.map { title throws(TodoError) in try TodoTitle.validated(title) }
                return .success(
                    .upsert(Todo(id: id, title: title ?? before.title, completed: completed ?? before.completed)))
            case .delete(let id):
                guard todo(id) != nil else { throw .notFound(id: id) }
                return .success(.delete(id: id))
            }
        } catch {
            return .failure(error)
        }
    }

    /// The `addNewTask` sink: hands the insert of the trimmed title on, unless this list refuses it (full).
    private func submit(_ title: String) {
        let add = pending.withLock { $0 }
        let write = TodoWrite.insert(title: title, completed: add?.completed ?? false)
        let todos = currentTasks
        let outcome = Self.judge(
            write, count: todos.count, maxCount: maxCount, nextID: (todos.last?.id ?? 0) + 1, todo: todo(id:)
        ).map { _ in (add?.commit ?? commit)(write) }
        pending.withLock { $0?.outcome = outcome }
    }

    /// The `committed` sink: emits the list after the change, with the change's journal id and what it did
    /// to the list (found by binary search: a write costs no comparison per todo).
    // NB: the emission happens under the lock on purpose: it keeps emissions in journal order. Subscribers of
    // `tasks` must not send into `committed` synchronously.
    private func apply(_ entry: Committed<TodoChange>) {
        applying.withLock { _ in
            // NB: the subject, the snapshot and the hub hold this list too: the change copies one chunk.
            var todos = subject.value.value
            let change = entry.change.apply(to: &todos)
            subject.send(Versioned(seq: entry.seq, change: change, todos))
        }
    }
}
