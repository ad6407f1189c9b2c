package import Reactive
import Synchronization

/// Seed 004's task list, persisted: a read-only `tasks` publisher and an `addNewTask` input whose `filter` is
/// the title rule and whose `sink` stores the task and emits the new list; and a `committed` input taking
/// each change the server's journal committed, whose list (`versions`) carries the entry's id to its event.
///
/// Thread-safe: routes call it from several loop threads at once. Every change (store write + emission) runs
/// under one lock, so emissions arrive in the order the store committed them.
///
/// ```swift
/// let model = try TaskListViewModel(store: store)
/// model.tasks.sink { print($0.map(\.title)) }.store(in: &bag)   // ["Buy Milk"]
/// model.addNewTask.send("Walk the dog")                         // ["Buy Milk", "Walk the dog"]
/// let todo = try model.add(title: "Feed the cat")               // the same path, with its result
/// ```
package final class TaskListViewModel: Sendable {
    /// The titles users want to add (seed 004); titles failing `TodoTitle` are dropped by the filter.
    /// `add(title:)` sends here and reads the outcome; other senders should not race it (the routes use `add`).
    package let addNewTask = PassthroughSubject<String, Never>()

    /// Input: each change committed to the journal, with its journal id, in journal order (the server sends
    /// every applied entry here, on every instance). The store is not written: the change is committed.
    package let committed = PassthroughSubject<Committed<TodoChange>, Never>()

    /// The current tasks with the journal id of the change that made them (nil for the list at start and
    /// after a change of `add`/`update`/`delete`); a new subscriber receives the current version first.
    package var versions: AnyPublisher<TaskListVersion, Never> {
        subject.eraseToAnyPublisher()
    }

    /// The current tasks, ordered by id; a new subscriber receives the current list first.
    package var tasks: AnyPublisher<[Todo], Never> {
        subject.map(\.todos).eraseToAnyPublisher()
    }

    /// The current tasks, ordered by id.
    package var currentTasks: [Todo] {
        subject.value.todos
    }

    /// The most todos the list holds; an add beyond it is refused (`.tooManyTodos`), so the list (and each
    /// encoding of it) has a bound set by configuration, not by traffic.
    package let maxCount: Int

    /// `--max-todos`'s default.
    package static let defaultMaxCount = 10_000

    private let subject: CurrentValueSubject<TaskListVersion, Never>
    private let store: any TodoStore
    /// Serialises each change and its emission.
    private let writes = Mutex<Void>(())
    private let subscriptions = Mutex<[AnyCancellable]>([])

    /// One `add(title:)` at a time, so the outcome the sink records belongs to the title just sent.
    private let adds = Mutex<Void>(())
    /// The outcome of the last title the sink processed.
    private let lastOutcome = Mutex<Result<Todo, TodoError>?>(nil)
    /// The `completed` of the task `add(title:completed:)` is adding (the subject carries titles only).
    private let addingCompleted = Mutex<Bool>(false)

    /// Loads the stored tasks and connects `addNewTask` to the store; at most `maxCount` tasks are added
    /// (a store that already holds more keeps them, and takes no new ones).
    package init(store: any TodoStore, maxCount: Int = TaskListViewModel.defaultMaxCount) throws(TodoError) {
        self.store = store
        self.maxCount = maxCount
        do {
            subject = CurrentValueSubject(TaskListVersion(seq: nil, todos: try store.all()))
        } catch {
            throw .storage(error.description)
        }
        let subscription =
            addNewTask
            .filter(TodoTitle.isAcceptable)
            .sink { [weak self] title in self?.persist(title) }
        let applying = committed.sink { [weak self] entry in self?.apply(entry) }
        subscriptions.withLock { $0 += [subscription, applying] }
    }

    /// Sends `title` into `addNewTask` and returns the todo its sink stored, `completed` as given.
    ///
    /// - Throws: `.titleTooShort` / `.titleTooLong` / `.titleInvalid` when the filter dropped the title,
    ///   `.tooManyTodos` when the list holds `maxCount` tasks, `.storage` when the store failed (nothing
    ///   changed).
    package func add(title: String, completed: Bool = false) throws(TodoError) -> Todo {
        // NB: the lock is held while sending on purpose. Reactive delivers a send that arrives while the sink
        // is busy on the thread already delivering, so an outcome cannot be matched to its caller by thread;
        // one add at a time makes the recorded outcome this title's.
        let outcome = adds.withLock { _ -> Result<Todo, TodoError>? in
            lastOutcome.withLock { $0 = nil }
            addingCompleted.withLock { $0 = completed }
            defer { addingCompleted.withLock { $0 = false } }
            addNewTask.send(title)
            return lastOutcome.withLock { outcome in
                defer { outcome = nil }
                return outcome
            }
        }
        guard let outcome else {
            // The filter dropped it: say why.
            _ = try TodoTitle.validated(title)
            // NB: a title that passes the rule but produced no outcome means the sink is gone (model deinit).
            throw .storage("the task list no longer accepts new tasks")
        }
        return try outcome.get()
    }

    /// The task with `id`.
    package func todo(id: Int) -> Todo? {
        subject.value.todos.first { $0.id == id }
    }

    /// Changes the title (same rule as `addNewTask`) and/or completion of the task with `id`.
    package func update(id: Int, title: String? = nil, completed: Bool? = nil) throws(TodoError) -> Todo {
        let newTitle: String?
        if let title { newTitle = try TodoTitle.validated(title) } else { newTitle = nil }
        return try change { list throws(TodoError) in
            guard let index = list.firstIndex(where: { $0.id == id }) else { throw .notFound(id: id) }
            var todo = list[index]
            if let newTitle { todo.title = newTitle }
            if let completed { todo.completed = completed }
            guard try Self.storing({ () throws(TodoStoreError) in try store.update(todo) }) else {
                throw .notFound(id: id)
            }
            list[index] = todo
            return todo
        }
    }

    /// Deletes the task with `id`.
    package func delete(id: Int) throws(TodoError) {
        try change { list throws(TodoError) in
            guard let index = list.firstIndex(where: { $0.id == id }) else { throw .notFound(id: id) }
            guard try Self.storing({ () throws(TodoStoreError) in try store.delete(id: id) }) else {
                throw .notFound(id: id)
            }
            list.remove(at: index)
        }
    }

    /// The `committed` sink: emits the list after the change, with the change's journal id.
    private func apply(_ entry: Committed<TodoChange>) {
        writes.withLock { _ in
            subject.send(TaskListVersion(seq: entry.seq, todos: entry.change.applied(to: subject.value.todos)))
        }
    }

    /// The `addNewTask` sink: stores the trimmed title and emits the new list.
    private func persist(_ title: String) {
        let result = Result { () throws(TodoError) -> Todo in
            try change { list throws(TodoError) in
                guard list.count < maxCount else { throw .tooManyTodos(limit: maxCount) }
                let todo = try Self.storing { () throws(TodoStoreError) in
                    try store.insert(title: TodoTitle.normalized(title), completed: addingCompleted.withLock { $0 })
                }
                list.append(todo)
                return todo
            }
        }
        lastOutcome.withLock { $0 = result }
    }

    /// Applies `body` to a copy of the list under the write lock and emits the result if `body` returns.
    // NB: the emission happens under the lock on purpose: it keeps emissions in commit order. Subscribers of
    // `tasks` must not call back into this model's mutations synchronously.
    private func change<Result>(_ body: (inout [Todo]) throws(TodoError) -> Result) throws(TodoError) -> Result {
        try writes.withLock { _ throws(TodoError) -> Result in
            var list = subject.value.todos
            let result = try body(&list)
            subject.send(TaskListVersion(seq: nil, todos: list))
            return result
        }
    }

    private static func storing<T>(_ operation: () throws(TodoStoreError) -> T) throws(TodoError) -> T {
        do {
            return try operation()
        } catch {
            throw .storage(error.description)
        }
    }
}
