package import Domain
import Foundation

/// A journal entry of the seeds' todos, read back with the todo before it: a restarted server rebuilds the
/// events of its previous run from the current list backwards (`reverted`), so a `Last-Event-ID` resume
/// across a restart gets the lists those events carried — without a copy of the whole list in every entry.
///
/// SQLite keeps `before` in its own column (`SQLiteEntries`); PostgreSQL keeps the change as one JSON
/// value (`{"op":"upsert","todo":…,"before":…}`, `{"op":"delete","id":…,"before":…}`), read by
/// `init?(seq:json:)`.
package struct TodoJournalEntry: Equatable, Sendable {
    /// The journal id: commit order; event id `seq × 65536`.
    package var seq: Int64
    /// The change.
    package var change: TodoChange
    /// The todo before the change (an update or delete); nil for an insert.
    package var before: Todo?

    /// The list (ordered by id) before this change, from the list after it; nil when the entry cannot say
    /// (a delete without its row).
    package func reverted(_ after: [Todo]) -> [Todo]? {
        switch (change, before) {
        case (.upsert, let before?), (.delete, let before?):
            // An update: the row goes back to what it was; a delete: it comes back, in id order.
            return TodoChange.upsert(before).applied(to: after)
        case (.upsert(let todo), nil):
            return after.filter { $0.id != todo.id }
        case (.delete, nil), (.all, _):
            return nil
        }
    }

    /// The entry `seq`: `change`, from `before`.
    package init(seq: Int64, change: TodoChange, before: Todo?) {
        self.seq = seq
        self.change = change
        self.before = before
    }

    /// The entry of PostgreSQL's stored JSON; nil when it is not a todo change.
    package init?(seq: Int64, json: String) {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(json.utf8)) else { return nil }
        switch (stored.op, stored.todo, stored.id) {
        case ("upsert", let todo?, _): change = .upsert(todo)
        case ("delete", _, let id?): change = .delete(id: id)
        default: return nil
        }
        self.seq = seq
        before = stored.before
    }

    /// The todo entry `row` holds, with the todo before it; nil when `row` is not a todo change.
    package init?(_ row: JournalRow) {
        guard let change = row.change.todoChange else { return nil }
        if case .all = change { return nil }
        seq = row.seq
        self.change = change
        before = row.before.flatMap { try? JSONDecoder().decode(Todo.self, from: Data($0.utf8)) }
    }

    private struct Stored: Decodable {
        var op: String
        var todo: Todo?
        var id: Int?
        var before: Todo?
    }
}
