/// One committed change of the task list, as the journal of several instances carries it: every instance
/// applies the same changes in the same order to the same starting list, so every instance holds the same
/// list after each one.
package enum TodoChange: Equatable, Sendable {
    /// The todo was added or replaced (the row after the change).
    case upsert(Todo)
    /// The todo with this id was deleted.
    case delete(id: Int)
    /// The whole list (ordered by id) replaces the list: an instance that missed entries deleted by
    /// retention reloads instead of applying them.
    case all([Todo])

    /// `list` (ordered by id) after this change.
    package func applied(to list: [Todo]) -> [Todo] {
        var list = list
        switch self {
        case .upsert(let todo):
            if let index = list.firstIndex(where: { $0.id == todo.id }) {
                list[index] = todo
            } else {
                let index = list.firstIndex { $0.id > todo.id } ?? list.endIndex
                list.insert(todo, at: index)
            }
        case .delete(let id):
            list.removeAll { $0.id == id }
        case .all(let todos):
            list = todos
        }
        return list
    }
}

/// A change committed to the journal, with its journal id: what the task list's `committed` input takes
/// (`Committed<TodoChange>`), and the journal's own entries (`JournalEntry`).
package struct Committed<Change: Equatable & Sendable>: Equatable, Sendable {
    /// The journal id: commit order; the event it causes is `seq × 65536`.
    package var seq: Int64
    /// What it changed.
    package var change: Change

    /// The entry `seq` saying `change`.
    package init(seq: Int64, change: Change) {
        self.seq = seq
        self.change = change
    }
}

/// The task list after a change, with the journal id of that change when the journal made it.
package struct TaskListVersion: Equatable, Sendable {
    /// The journal id of the change (nil: the list at start, or a change not from the journal).
    package var seq: Int64?
    /// Every task, ordered by id.
    package var todos: [Todo]

    /// The list `todos` after the entry `seq`.
    package init(seq: Int64?, todos: [Todo]) {
        self.seq = seq
        self.todos = todos
    }
}
