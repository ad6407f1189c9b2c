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

    /// Whether some item passes `test`, looking no further than the first that does.
    func contains(where test: (Item) -> Bool) -> Bool {
        slots.contains { slot in slot.map { test($0.item) } ?? false }
    }

    /// The entry of `key`, if it holds one.
    func entry(forKey key: String) -> LiveEntry<Item>? { positions[key].flatMap { slots[$0] } }

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
    /// caller starts a new mirror from `items`. The common writes (items appended, changed in place or
    /// removed) are found by comparing the lists by position, without copying the mirror; others cost a copy
    /// and a lookup per item.
    mutating func replace(with items: [Item], key: (Item) -> String) -> [LiveItemChange<Item>]? {
        if let changes = replaceByPosition(with: items, key: key) { return changes }
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

    /// `replace` for a list that differs from this one in one run of items (the lists compared by position
    /// from both ends): appended at the end, removed, or changed in place. Nil, having changed nothing, for
    /// any other difference.
    private mutating func replaceByPosition(with items: [Item], key: (Item) -> String) -> [LiveItemChange<Item>]? {
        // The run that differs: the held entries of slots[start..<end] against items[prefix..<items.count - suffix].
        var start = 0
        var prefix = 0
        while true {
            while start < slots.count, slots[start] == nil { start += 1 }
            guard start < slots.count, prefix < items.count, slots[start]?.item == items[prefix] else { break }
            start += 1
            prefix += 1
        }
        var end = slots.count
        var suffix = 0
        while true {
            while end > start, slots[end - 1] == nil { end -= 1 }
            guard end > start, suffix < items.count - prefix,
                slots[end - 1]?.item == items[items.count - 1 - suffix]
            else { break }
            end -= 1
            suffix += 1
        }
        let oldKeys = slots[start..<end].compactMap { $0?.key }
        let newRun = items[prefix..<(items.count - suffix)]
        var changes: [LiveItemChange<Item>] = []
        if oldKeys.isEmpty {
            // NB: a new key goes last, so only a run at the end keeps the order.
            let keys = newRun.map(key)
            guard suffix == 0, Set(keys).count == keys.count, keys.allSatisfy({ positions[$0] == nil }) else {
                return nil
            }
            for item in newRun { if let change = apply(.put(item), key: key) { changes.append(change) } }
        } else if newRun.isEmpty {
            for itemKey in oldKeys { if let change = apply(.remove(key: itemKey), key: key) { changes.append(change) } }
        } else {
            guard oldKeys.count == newRun.count, zip(oldKeys, newRun).allSatisfy({ $0 == key($1) }) else { return nil }
            for item in newRun { if let change = apply(.put(item), key: key) { changes.append(change) } }
        }
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
