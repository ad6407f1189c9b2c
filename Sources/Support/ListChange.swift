/// One item's change in a list, with its place in the list: what the view model that applied a write knows,
/// and what `Versioned.change` carries for a list, so the list's encoder, `?diff=1` and the live queries
/// follow a write at the cost of one item instead of comparing the lists.
///
/// ```swift
/// var todos = [a, c]
/// todos.insert(b, at: 1)   // ListChange.inserted(b, at: 1)
/// todos.remove(at: 0)      // ListChange.deleted(a, at: 0)
/// ```
package enum ListChange<Item: Sendable>: Sendable {
    /// `item` is new; it is now at `at`.
    case inserted(Item, at: Int)
    /// The item at `at` (same id) is now `item`, a different value.
    case updated(Item, at: Int)
    /// `item` was at `at` and is gone.
    case deleted(Item, at: Int)
    /// Nothing changed: the same item written again, or a missing item deleted.
    case unchanged
}

extension ListChange: Equatable where Item: Equatable {}
