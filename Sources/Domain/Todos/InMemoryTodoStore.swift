import Synchronization

/// A `TodoStore` that keeps todos in memory only, with the same id rule as the SQLite store (ids grow and
/// are never reused). For demos and view-model tests; the server uses SQLite, also for `--data :memory:`.
package final class InMemoryTodoStore: TodoStore {
    private struct State {
        var todos: [Todo]
        var lastID: Int
    }

    private let state: Mutex<State>

    /// Creates a store holding `todos` (ordered by id); the next id follows the largest one.
    package init(todos: [Todo] = [Todo(id: 1, title: "Buy Milk", completed: false)]) {
        state = Mutex(State(todos: todos.sorted { $0.id < $1.id }, lastID: todos.map(\.id).max() ?? 0))
    }

    /// Every todo, ordered by id.
    package func all() -> [Todo] {
        state.withLock { $0.todos }
    }

    /// Stores a new todo with the next id.
    package func insert(title: String, completed: Bool) -> Todo {
        state.withLock { state in
            state.lastID += 1
            let todo = Todo(id: state.lastID, title: title, completed: completed)
            state.todos.append(todo)
            return todo
        }
    }

    /// Replaces the todo with `todo.id`; `false` when there is none.
    package func update(_ todo: Todo) -> Bool {
        state.withLock { state in
            guard let index = state.todos.firstIndex(where: { $0.id == todo.id }) else { return false }
            state.todos[index] = todo
            return true
        }
    }

    /// Deletes the todo with `id`; `false` when there is none.
    package func delete(id: Int) -> Bool {
        state.withLock { state in
            guard let index = state.todos.firstIndex(where: { $0.id == id }) else { return false }
            state.todos.remove(at: index)
            return true
        }
    }
}
