package import Domain
import Foundation
import Support

/// The seeds' todos as one collection of the journal (`todos`): an entry is the todo's id and the todo after
/// the change (`{"id":1,"title":"Buy Milk","completed":false}`; nil for a delete); the whole list, which an
/// instance that missed entries deleted by retention takes instead, is the collection with no id and the
/// list as a JSON array. Both engines store a todo entry with the todo before an update or delete beside it
/// (`livestate_entries.before`), from which a restart rebuilds the lists of its events (`SeedRewind`).
extension JournalChange {
    /// The todos' collection, also their `/events` topic.
    package static let todos = "todos"

    /// `change` as an entry of the todos' collection.
    package init(_ change: TodoChange) {
        switch change {
        case .upsert(let todo): self.init(collection: Self.todos, id: String(todo.id), document: Self.json(todo))
        case .delete(let id): self.init(collection: Self.todos, id: String(id), document: nil)
        case .all(let todos): self.init(collection: Self.todos, id: nil, document: Self.json(todos))
        }
    }

    /// The todo change this entry says; nil when it is of another collection or does not hold a todo.
    package var todoChange: TodoChange? {
        guard collection == Self.todos else { return nil }
        guard let document else { return id.flatMap { Int($0) }.map { .delete(id: $0) } }
        let bytes = Data(document.utf8)
        guard id != nil else { return (try? JSONDecoder().decode([Todo].self, from: bytes)).map { .all($0) } }
        return (try? JSONDecoder().decode(Todo.self, from: bytes)).map { .upsert($0) }
    }

    private static func json(_ value: some Encodable) -> String {
        // Invariant: a todo is an integer, a string and a boolean, which always encode.
        guard let text = try? JSONCoding.text(value) else { preconditionFailure("a todo always encodes") }
        return text
    }
}
