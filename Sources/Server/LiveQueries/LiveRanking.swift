/// One live query's items in its order: the items of the collection that pass its filters, with their
/// sort keys read once, sorted by the key and then by rank (the collection's order); with a `margin`, only
/// the first of them up to the window's end plus the margin (the others are counted, not held). A changed
/// item is
/// found and placed by binary search, and the query's window (`_limit`, `_page`, `_start`) is read off the
/// list, so a write costs its query O(log n) comparisons and the move of one chunk (`LiveChunks`), and the
/// change of the result is worked out from the changed item and the window's edges, never from the whole
/// result. A ranking read from a sort's kept order (`LiveOrders`) shares the order's chunks until a write
/// changes them.
///
/// A bounded ranking that lost items from its held part until the window may reach past it is `isShort`:
/// its owner reads it anew (`LiveQueryGroup`).
///
/// ```swift
/// var ranking = LiveRanking(query, entries: mirror.entries)
/// ranking.result                               // LiveResult: what a fresh GET answers
/// ranking.apply(change, encode: encode)        // LiveResultChange, or nil when the result is the same
/// ```
struct LiveRanking<Query: LiveQuery> {
    typealias Item = Query.Item

    /// An item of the query's result with its sort key.
    struct Ranked: Sendable {
        var entry: LiveEntry<Item>
        var sortKey: Query.SortKey
    }

    let query: Query
    /// The query's filter, made once for its loop.
    let passes: (Item) -> Bool
    /// The first items that pass, in the query's order: every one, or with a `capacity` up to it.
    private(set) var items = LiveChunks<Ranked>()
    /// How many items pass.
    private(set) var total = 0
    /// The most items held (the window's end plus the margin); nil: every item that passes.
    let capacity: Int?
    /// Items held past `capacity` before the held part is cut back to it.
    private let slack: Int
    /// The name of the query's sort (`LiveQuery.ordering`) when it filters no item: its held items are then the
    /// first of its sort's kept order, and a version's places in that order (`LiveVersion.places`) are theirs.
    private let orderKey: String?

    /// The query's items among `entries` (the collection, in its order). With a `margin` and a window that
    /// ends (`_limit`, `_end`, `_page`), only the first up to the window's end plus `margin` are held.
    ///
    /// With a `total`, `entries` are instead the first items that pass, already in the query's order (at
    /// least up to that end plus `margin`, when there are so many), and `total` counts every item that passes;
    /// `ranked`, when given, are those items with their sort keys instead (read from a kept order: its chunks
    /// are shared, and no sort key is read again).
    init(
        _ query: Query, entries: [LiveEntry<Item>], margin: Int? = nil, total: Int? = nil,
        ranked: LiveChunks<Ranked>? = nil
    ) {
        self.query = query
        passes = query.itemFilter()
        // NB: a window ending past any count the collection can reach holds every item (and no sum overflows).
        capacity = margin.flatMap { margin in query.window.end.flatMap { $0 > Int.max / 4 ? nil : $0 + margin + 2 } }
        slack = max(2, margin ?? 0)
        orderKey = query.filtersItems ? nil : query.ordering?.key
        guard let total else {
            rebuild(from: entries)
            return
        }
        self.total = total
        if let ranked {
            items = capacity.map { ranked.head($0) } ?? ranked
        } else {
            let count = min(capacity ?? entries.count, entries.count)
            items = LiveChunks(entries.prefix(count).map { Ranked(entry: $0, sortKey: query.sortKey(of: $0.item)) })
        }
    }

    /// Takes the items from `entries` again (the collection was replaced).
    mutating func rebuild(from entries: [LiveEntry<Item>]) {
        let selected = entries.filter { passes($0.item) }.map { Ranked(entry: $0, sortKey: query.sortKey(of: $0.item)) }
        total = selected.count
        // NB: `entries` are in rank order and Swift's sort is stable, so ties stay in rank order.
        let sorted = selected.sorted { query.order($0.sortKey, $1.sortKey) < 0 }
        items = LiveChunks(capacity.map { sorted.prefix($0) } ?? sorted[...])
    }

    /// Whether the window may reach past the held items: the ranking must be read anew.
    var isShort: Bool {
        items.count < total && items.count < query.window.bounds(count: total).upper + 2
    }

    /// Whether a bounded ranking holds so few items past its window that a change or two can leave it short.
    var isNearlyShort: Bool {
        capacity != nil && items.count < total && items.count < query.window.bounds(count: total).upper + 4
    }

    /// The result: the window's items and the count that passes.
    var result: LiveResult<Item> {
        let (lower, upper) = heldBounds
        return LiveResult(items: items.map(in: lower..<upper) { $0.entry.item }, total: total)
    }

    /// The keys of the result's items.
    var resultKeys: [String] {
        let (lower, upper) = heldBounds
        return items.map(in: lower..<upper) { $0.entry.key }
    }

    /// The window's positions among the held items.
    private var heldBounds: (lower: Int, upper: Int) {
        let (lower, upper) = query.window.bounds(count: total)
        return (min(lower, items.count), min(upper, items.count))
    }

    // MARK: Changes

    // NB: specialized for a data file's queries, as `LiveQueryFanout.apply` is.
    /// Applies one changed item and gives the change of the result (nil when neither the items nor the
    /// total changed). Only the changed item and the items at the window's edges can enter or leave it: a
    /// removal and an insertion move any other item by one place at most. `places` are the version's places in
    /// the kept orders (`LiveVersion.places`): where the change's item is in its sort's order, checked first.
    @_specialize(where Query == DocumentLiveQuery)
    mutating func apply(
        _ change: LiveItemChange<Item>, encode: (Item) -> [UInt8], places: [String: [LiveOrderPlace]] = [:]
    ) -> LiveResultChange? {
        let removed = change.before.flatMap { passes($0.item) ? ranked($0) : nil }
        let added = change.after.flatMap { passes($0.item) ? ranked($0) : nil }
        guard removed != nil || added != nil else { return nil }
        let place = orderKey.flatMap { places[$0]?.first }
        let oldCount = items.count
        let oldTotal = total
        let old = query.window.bounds(count: total)
        let removedAt = removed.flatMap { holds($0) ? index(of: $0, at: place?.removed) : nil }
        var edgeIndices = Set<Int>()
        for bound in [old.lower, old.upper] {
            for index in max(0, bound - 2)..<max(0, min(oldCount, bound + 2)) where index != removedAt {
                edgeIndices.insert(index)
            }
        }
        let edges = edgeIndices.map { (ranked: items[$0], oldIndex: $0) }
        if removed != nil { total -= 1 }
        if let removedAt { items.remove(at: removedAt) }
        let insertedAt = added.flatMap { added -> Int? in
            defer { total += 1 }
            guard takes(added) else { return nil }
            let position = insertionIndex(of: added, at: place?.inserted)
            items.insert(added, at: position)
            return position
        }
        let new = query.window.bounds(count: total)
        var result = LiveResultChange(total: total)
        var deleted: [(index: Int, key: String)] = []
        var inserted: [LiveResultChange.Placed] = []
        let wasIn = removedAt.map { old.lower <= $0 && $0 < old.upper } ?? false
        let isIn = insertedAt.map { new.lower <= $0 && $0 < new.upper } ?? false
        if let removedAt, wasIn, !isIn { deleted.append((removedAt, change.key)) }
        if let insertedAt, let after = change.after, isIn {
            let placed = LiveResultChange.Placed(json: encode(after.item), index: insertedAt - new.lower)
            if !wasIn {
                inserted.append(placed)
            } else if change.before?.item != after.item {
                result.updated.append(placed)
            }
        }
        for edge in edges {
            // NB: the held items moved only by the removal and the insertion: no search for an edge's place.
            let afterRemoval = edge.oldIndex - (removedAt.map { $0 < edge.oldIndex } == true ? 1 : 0)
            let newIndex = afterRemoval + (insertedAt.map { $0 <= afterRemoval } == true ? 1 : 0)
            let edgeWasIn = old.lower <= edge.oldIndex && edge.oldIndex < old.upper
            let edgeIsIn = new.lower <= newIndex && newIndex < new.upper
            if edgeWasIn, !edgeIsIn { deleted.append((edge.oldIndex, edge.ranked.entry.key)) }
            if !edgeWasIn, edgeIsIn {
                inserted.append(.init(json: encode(edge.ranked.entry.item), index: newIndex - new.lower))
            }
        }
        result.deleted = deleted.sorted { $0.index < $1.index }.map(\.key)
        result.inserted = inserted.sorted { $0.index < $1.index }
        trim()
        guard !result.isEmpty || oldTotal != total else { return nil }
        return result
    }

    /// Applies several changes (or none) without working out the result's change; `places` as `apply`'s,
    /// one per change.
    @_specialize(where Query == DocumentLiveQuery)
    mutating func place(_ changes: [LiveItemChange<Item>], places: [String: [LiveOrderPlace]] = [:]) {
        let ordered = orderKey.flatMap { places[$0] }.flatMap { $0.count == changes.count ? $0 : nil }
        for (offset, change) in changes.enumerated() {
            let place = ordered?[offset]
            if let removed = change.before.flatMap({ passes($0.item) ? ranked($0) : nil }) {
                total -= 1
                if holds(removed), let index = index(of: removed, at: place?.removed) { items.remove(at: index) }
            }
            if let added = change.after.flatMap({ passes($0.item) ? ranked($0) : nil }) {
                if takes(added) { items.insert(added, at: insertionIndex(of: added, at: place?.inserted)) }
                total += 1
            }
        }
        trim()
    }

    /// Whether `ranked` (an item that passes, before a change) is among the held items.
    private func holds(_ ranked: Ranked) -> Bool {
        items.count == total || items.last.map { !precedes($0, ranked) } ?? false
    }

    /// Whether `ranked` (an item that passes, not counted yet) goes among the held items: all are held, or
    /// it comes before the last held one.
    private func takes(_ ranked: Ranked) -> Bool {
        items.count == total || items.last.map { precedes(ranked, $0) } ?? false
    }

    /// Cuts the held items back to `capacity` once they grew `slack` past it.
    private mutating func trim() {
        guard let capacity, items.count > capacity + slack else { return }
        items.removeSuffix(from: capacity)
    }

    /// The query's items before `changes` (oldest first) were applied: each undone, newest first.
    func undoing(_ changes: [LiveItemChange<Item>]) -> LiveRanking {
        var earlier = self
        earlier.place(changes.reversed().map { LiveItemChange(key: $0.key, before: $0.after, after: $0.before) })
        return earlier
    }

    // MARK: Search

    private func ranked(_ entry: LiveEntry<Item>) -> Ranked {
        Ranked(entry: entry, sortKey: query.sortKey(of: entry.item))
    }

    /// Whether `lhs` comes before `rhs`: by sort key, then by rank.
    @_specialize(where Query == DocumentLiveQuery)
    func precedes(_ lhs: Ranked, _ rhs: Ranked) -> Bool {
        let order = query.order(lhs.sortKey, rhs.sortKey)
        return order != 0 ? order < 0 : lhs.entry.rank < rhs.entry.rank
    }

    /// The first index whose item does not come before `ranked`: where it is, or goes.
    @_specialize(where Query == DocumentLiveQuery)
    private func insertionIndex(of ranked: Ranked) -> Int {
        items.partitioningIndex { precedes($0, ranked) }
    }

    /// Where `ranked` goes: `hint` when it is that place (the items before it come before `ranked`, the one
    /// at it does not), else found by binary search.
    @_specialize(where Query == DocumentLiveQuery)
    private func insertionIndex(of ranked: Ranked, at hint: Int?) -> Int {
        if let hint, hint <= items.count, hint == 0 || precedes(items[hint - 1], ranked),
            hint == items.count || !precedes(items[hint], ranked)
        {
            return hint
        }
        return insertionIndex(of: ranked)
    }

    /// Where the item of `ranked`'s key is: `hint` when it holds that key, else found by binary search.
    private func index(of ranked: Ranked, at hint: Int?) -> Int? {
        if let hint, hint < items.count, items[hint].entry.key == ranked.entry.key { return hint }
        return index(of: ranked)
    }

    /// Where the item of `ranked`'s key is.
    private func index(of ranked: Ranked) -> Int? {
        let position = insertionIndex(of: ranked)
        if position < items.count, items[position].entry.key == ranked.entry.key { return position }
        // NB: not reached while sort keys are read the same way each time; a look by key keeps it exact.
        return items.firstIndex { $0.entry.key == ranked.entry.key }
    }
}

// MARK: From an order of the collection

extension LiveRanking {
    /// What a ranking of `query` with `margin` holds of `order` (the collection's items in the query's order,
    /// ties in the collection's): the first items that pass, up to the window's end plus the margin, and how
    /// many pass: the other items are only tested, or, when the query filters none, only counted. Nil when
    /// the window has no end (every item that passes is held).
    static func held(of order: [Item], query: Query, margin: Int) -> (items: [Item], total: Int)? {
        guard let end = query.window.end, end <= Int.max / 4 else { return nil }
        let capacity = end + margin + 2
        guard query.filtersItems else { return (Array(order.prefix(capacity)), order.count) }
        let passes = query.itemFilter()
        var items: [Item] = []
        var total = 0
        for item in order where passes(item) {
            if items.count < capacity { items.append(item) }
            total += 1
        }
        return (items, total)
    }

    /// The ranking of `query` over the entries `held` (`held(of:query:margin:)`'s items as an earlier version
    /// had them) and the `total` that passed then, brought up to date by `changes` (the versions since, oldest
    /// first). Nil when `held` is not in the query's order by sort key and rank (the order was made some other
    /// way), or when the changes took so many of its items that the window may reach past them. Without a
    /// `margin`, `held` is every item that passes.
    init?(
        _ query: Query, held: [LiveEntry<Item>], total: Int, changes: [LiveItemChange<Item>], margin: Int?
    ) {
        self.init(query, entries: held, margin: margin, total: total)
        // NB: walked once by the chunks' iterator: a zip with `dropFirst()` read every item by index.
        var earlier: Ranked?
        for later in items {
            if let earlier, !precedes(earlier, later) { return nil }
            earlier = later
        }
        place(changes)
        guard !isShort else { return nil }
    }
}
