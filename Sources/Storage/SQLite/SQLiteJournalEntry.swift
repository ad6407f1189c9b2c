package import Domain
import Foundation
import HTTP

/// One row of the SQLite journal (`livestate_events`): a committed todo change and the row as it was
/// before it. The change is stored as PostgreSQL stores it (`{"op":"upsert","todo":…}`,
/// `{"op":"delete","id":…}`); `before` is SQLite's addition: a restarted server rebuilds the events of
/// its previous run from the current list backwards (`reverted`), so a `Last-Event-ID` resume across a
/// restart gets the lists those events carried — without a copy of the whole list in every row.
package struct SQLiteJournalEntry: Equatable, Sendable {
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

    /// The row's JSON (`change` column).
    var json: String {
        let stored: Stored
        switch change {
        case .upsert(let todo): stored = Stored(op: "upsert", todo: todo, before: before)
        case .delete(let id): stored = Stored(op: "delete", id: id, before: before)
        case .all: stored = Stored(op: "all")
        }
        return (try? JSONCoding.text(stored)) ?? "{}"
    }

    /// The entry of a row; nil when its JSON is not a todo change.
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

    /// An entry about to be written (its `seq` comes from the counter in the same transaction).
    init(change: TodoChange, before: Todo?) {
        seq = 0
        self.change = change
        self.before = before
    }

    private struct Stored: Codable {
        var op: String
        var todo: Todo?
        var id: Int?
        var before: Todo?
    }
}
