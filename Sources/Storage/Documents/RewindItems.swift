/// One resource's items as a restart's rewind (`DocumentRewind`) takes them back, entry by entry, newest first:
/// each engine's order of items has its own holder (`PlacedItems`: a shared database's places; a data file's
/// order of items, in Server).
package protocol RewindItems {
    /// The resource these items come from and go back into.
    associatedtype Resource

    /// The name of `resource` (the entries' `collection`).
    static func name(of resource: Resource) -> String

    /// Undoes the entry that left item `key` (nil: a resource as a whole, a singular one's object) as `now`
    /// (its JSON; nil: deleted) by putting back the item `before` it; false, changing nothing, when the items
    /// are not what the entry left or `before` cannot be put back exactly.
    mutating func undo(_ key: String?, now: String?, before: ItemBefore) -> Bool

    /// `resource` with these items instead of its own.
    func replacingItems(of resource: Resource) -> Resource
}
