/// One version of a collection, as a write left it: the event id it came with, every item in the
/// collection's order, and the items that may have changed since the version before.
///
/// A collection's change (`LiveCollection.publish`) becomes one version; every loop's live queries see the
/// versions in id order.
struct LiveVersion<Item: Sendable>: Sendable {
    /// The id of the event that made this version.
    var id: UInt64
    /// The items, in the collection's order.
    var items: [Item]
    /// The items that changed (or moved) from the version before: only queries one of them passes, before
    /// or after, can have a different result.
    var changes: [LiveItemChange<Item>]
}

/// One item that may have changed between two versions, by its key: absent before (inserted), absent
/// after (deleted), or both.
struct LiveItemChange<Item: Sendable>: Sendable {
    /// The item's key (its id's JSON text).
    var key: String
    /// The item in the version before, if it was there.
    var before: Item?
    /// The item in the new version, if it is there.
    var after: Item?
}

extension LiveVersion where Item: Equatable {
    /// The changes from `old` to `new`: the items between the longest equal front and the longest equal back
    /// of the two lists (compared by position, as a write changes one place), paired by key.
    ///
    /// NB: a superset of what changed (an item that only moved is in it), never fewer: an item outside the
    /// middle keeps its value and its place among the others.
    static func changes(from old: [Item], to new: [Item], key: (Item) -> String) -> [LiveItemChange<Item>] {
        var front = 0
        let shorter = min(old.count, new.count)
        while front < shorter, old[front] == new[front] { front += 1 }
        var back = 0
        while back < shorter - front, old[old.count - 1 - back] == new[new.count - 1 - back] { back += 1 }
        let removed = old[front..<(old.count - back)]
        let added = new[front..<(new.count - back)]
        var changes: [LiveItemChange<Item>] = []
        var position: [String: Int] = [:]
        for item in removed {
            let itemKey = key(item)
            position[itemKey] = changes.count
            changes.append(LiveItemChange(key: itemKey, before: item, after: nil))
        }
        for item in added {
            let itemKey = key(item)
            if let index = position[itemKey] {
                changes[index].after = item
            } else {
                changes.append(LiveItemChange(key: itemKey, before: nil, after: item))
            }
        }
        return changes
    }
}
