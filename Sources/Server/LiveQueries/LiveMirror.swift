/// A collection's items as its live queries follow them: by key, each with its rank, in the collection's
/// order. A write is one edit (`apply`): a lookup by key, and the change it made with the item before it,
/// which is what the live queries place and remove by; nothing costs the collection's size but `entries`.
///
/// ```swift
/// var mirror = LiveMirror(items: posts, key: { $0.idText })
/// mirror.apply(.put(post), key: { $0.idText })    // LiveItemChange(key: "3", before: old, after: new)
/// ```
struct LiveMirror<Item: Sendable & Equatable>: Sendable {
    /// The entries in the collection's order; a removed one leaves an empty slot until half are empty.
    private var slots: [LiveEntry<Item>?] = []
    /// Key → slot.
    private var positions: [String: Int] = [:]
    private var nextRank = 0

    /// The items of `items`, in their order, ranked by it.
    init(items: [Item], key: (Item) -> String) {
        slots.reserveCapacity(items.count)
        positions.reserveCapacity(items.count)
        for item in items { _ = apply(.put(item), key: key) }
    }

    /// How many items it holds.
    var count: Int { positions.count }

    /// Every entry in the collection's order.
    var entries: [LiveEntry<Item>] { slots.compactMap { $0 } }

    /// Applies one edit: the change it made, or nil when it changed nothing (the same item again, or the
    /// removal of a key it does not hold). A new key goes last in the order; a replaced item keeps its place.
    mutating func apply(_ edit: LiveEdit<Item>, key: (Item) -> String) -> LiveItemChange<Item>? {
        switch edit {
        case .put(let item):
            let itemKey = key(item)
            if let slot = positions[itemKey], let old = slots[slot] {
                if old.item == item { return nil }
                let new = LiveEntry(key: itemKey, item: item, rank: old.rank)
                slots[slot] = new
                return LiveItemChange(key: itemKey, before: old, after: new)
            }
            let new = LiveEntry(key: itemKey, item: item, rank: nextRank)
            nextRank += 1
            positions[itemKey] = slots.count
            slots.append(new)
            return LiveItemChange(key: itemKey, before: nil, after: new)
        case .remove(let itemKey):
            guard let slot = positions.removeValue(forKey: itemKey), let old = slots[slot] else { return nil }
            slots[slot] = nil
            if slots.count > 32, positions.count < slots.count / 2 { compact() }
            return LiveItemChange(key: itemKey, before: old, after: nil)
        }
    }

    /// The changes that turn this collection into `items` (in their order), applied; nil when `items` are in
    /// an order the changes cannot give (an item moved, or a new one came before an old one): then the
    /// caller starts a new mirror from `items`. Costs a pass over both lists (the seed lists are small).
    mutating func replace(with items: [Item], key: (Item) -> String) -> [LiveItemChange<Item>]? {
        var next = self
        var changes: [LiveItemChange<Item>] = []
        let keys = items.map(key)
        let kept = Set(keys)
        for entry in entries where !kept.contains(entry.key) {
            if let change = next.apply(.remove(key: entry.key), key: key) { changes.append(change) }
        }
        for item in items {
            if let change = next.apply(.put(item), key: key) { changes.append(change) }
        }
        guard next.slots.lazy.compactMap({ $0?.key }).elementsEqual(keys) else { return nil }
        self = next
        return changes
    }

    /// Drops the empty slots.
    private mutating func compact() {
        slots = slots.filter { $0 != nil }
        positions.removeAll(keepingCapacity: true)
        for (slot, entry) in slots.enumerated() {
            if let entry { positions[entry.key] = slot }
        }
    }
}
