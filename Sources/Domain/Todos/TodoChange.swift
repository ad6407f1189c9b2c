package import Support

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
    package func applied<List: RandomAccessCollection & MutableCollection & RangeReplaceableCollection>(
        to list: List
    ) -> List where List.Element == Todo, List.Index == Int {
        var list = list
        _ = apply(to: &list)
        return list
    }

    /// Applies this change to `list` (ordered by id), finding the todo by binary search, and says what it
    /// did there: the change of one item with its place, or nil for `.all` (the whole list replaced). On a
    /// `ChunkedList` it changes (and, when shared, copies) one chunk.
    package func apply<List: RandomAccessCollection & MutableCollection & RangeReplaceableCollection>(
        to list: inout List
    ) -> ListChange<Todo>? where List.Element == Todo, List.Index == Int {
        switch self {
        case .upsert(let todo):
            let index = Self.index(of: todo.id, in: list)
            guard index < list.endIndex, list[index].id == todo.id else {
                list.insert(todo, at: index)
                return .inserted(todo, at: index)
            }
            guard list[index] != todo else { return .unchanged }
            list[index] = todo
            return .updated(todo, at: index)
        case .delete(let id):
            let index = Self.index(of: id, in: list)
            guard index < list.endIndex, list[index].id == id else { return .unchanged }
            return .deleted(list.remove(at: index), at: index)
        case .all(let todos):
            list = List(todos)
            return nil
        }
    }

    /// The first index of `list` (ordered by id) whose id is `id` or above: a binary search.
    package static func index(of id: Int, in list: some RandomAccessCollection<Todo>) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let middle = low + (high - low) / 2
            if list[list.index(list.startIndex, offsetBy: middle)].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A change committed to the journal, with its journal id: what the task list's `committed` input takes
/// (`Committed<TodoChange>`), and the journal's own entries (`JournalEntry`).
///
/// NB: not the `Versioned` carrier, though it looks like one: this is an entry before any view model applied
/// it (its id always there, no value yet, and for the journal's own entries a change no view model reads),
/// while `Versioned` is what applying one gives (the change as it landed, with its place, and the value).
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
