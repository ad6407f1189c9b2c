/// One item of a live collection with its place in the collection's order: `rank` grows with the order
/// (an item keeps its rank while it is updated; a new item takes one above every other), so a query's
/// ties (`LiveQuery.order` 0) are broken by rank exactly as by the list's order.
struct LiveEntry<Item: Sendable>: Sendable {
    /// The item's key (its id's JSON text, as `deleted` lists it).
    var key: String
    /// The item.
    var item: Item
    /// Its place in the collection's order.
    var rank: Int
}

/// One item a write changed: absent before (inserted), absent after (deleted), or both (updated).
struct LiveItemChange<Item: Sendable>: Sendable {
    /// The item's key.
    var key: String
    /// The item before the write, if it was there.
    var before: LiveEntry<Item>?
    /// The item after the write, if it is there.
    var after: LiveEntry<Item>?
}

/// One change of a collection, as a write left it: the event id it came with and the items it changed, or,
/// when the collection was replaced in a way its changes do not tell (a list reloaded in another order),
/// every item in order.
///
/// A collection's change (`LiveCollection.publish`) becomes one version; every loop's live queries see the
/// versions in id order.
///
/// NB: not the `Versioned` carrier the view models publish, though it is made from it: it is the live
/// queries' own record, with what the carrier does not hold and they need to place and rewind a change (the
/// item before the write and each item's rank in the collection's order, keyed by the event id, not the
/// journal's), and with no value (a version keeps the changed items alone: the history holds 256 of them).
struct LiveVersion<Item: Sendable>: Sendable {
    /// The id of the event that made this version.
    var id: UInt64
    /// The items that changed from the version before.
    var changes: [LiveItemChange<Item>]
    /// Every item in the collection's order, when the version replaced the collection (then `changes` is
    /// empty and no version before it can be rewound to).
    var replaced: [LiveEntry<Item>]?
    /// The fields some live query reads by their presence (`LiveQuery.presenceFields`) that this version
    /// gave to the collection's first item (true) or took from its last (false).
    var presence: [String: Bool] = [:]
    /// Every item in the collection's order after this version, when `presence` is not empty: the queries
    /// that read differently from now on are evaluated again. Not kept in the history.
    var entries: [LiveEntry<Item>]?
    /// Where each change moved its item in each kept order of a sort, by the order's name
    /// (`LiveQuery.ordering`), as the collection recorded the version. Not kept in the history.
    var places: [String: [LiveOrderPlace]] = [:]
}

/// One write as the collection's owner knows it: an item put (inserted or replaced) or removed by key.
enum LiveEdit<Item: Sendable>: Sendable {
    case put(Item)
    case remove(key: String)
}
