import Domain
import Reactive
import Synchronization

/// Storage at the edge of the task list's tests: records every write handed to it and, when `echoes`,
/// commits it at once as a journal would (ids grow from `nextID`, entry ids from 1) and sends the change
/// back into the list's `committed` input.
final class RecordingJournal: Sendable {
    private struct State {
        var writes: [TodoWrite] = []
        var nextID: Int
        var seq: Int64 = 0
    }

    private let state: Mutex<State>
    private let echoes: Bool
    /// The list the committed changes go back to.
    private let model = Mutex<TaskListViewModel?>(nil)

    init(nextID: Int = 2, echoes: Bool = true) {
        state = Mutex(State(nextID: nextID))
        self.echoes = echoes
    }

    /// The writes handed on so far, in order.
    var writes: [TodoWrite] { state.withLock { $0.writes } }

    /// A task list showing `todos` whose `addNewTask` commits here.
    func makeList(todos: [Todo], maxCount: Int = TaskListViewModel.defaultMaxCount) -> TaskListViewModel {
        let list = TaskListViewModel(todos: todos, maxCount: maxCount) { [self] write in commit(write) }
        model.withLock { $0 = list }
        return list
    }

    /// Records `write` and, when echoing, commits it back into the list.
    func commit(_ write: TodoWrite) {
        let entry: Committed<TodoChange>? = state.withLock { state in
            state.writes.append(write)
            guard echoes else { return nil }
            state.seq += 1
            switch write {
            case .insert(let title, let completed):
                defer { state.nextID += 1 }
                return Committed(
                    seq: state.seq, change: .upsert(Todo(id: state.nextID, title: title, completed: completed)))
            case .update(let id, let title, let completed):
                guard var todo = model.withLock({ $0?.todo(id: id) }) else { return nil }
                if let title { todo.title = title }
                if let completed { todo.completed = completed }
                return Committed(seq: state.seq, change: .upsert(todo))
            case .delete(let id):
                return Committed(seq: state.seq, change: .delete(id: id))
            }
        }
        if let entry { model.withLock { $0 }?.committed.send(entry) }
    }
}
