/// A live collection's items in the order of each sort its live queries use (`LiveQuery.ordering`), kept up
/// to date from every version as it is recorded: a changed item is found by binary search and placed in one
/// chunk of the order (`LiveChunks`: no move of the collection's tail under the lock), so a
/// sorted live query opens or refills from its sort's order as the collection is now, whatever the number of
/// writes since the order was first read, and never sorts the collection on an event loop.
///
/// An order starts from a kept order of the source (a data file's sort index, perhaps of an earlier version,
/// brought up to date by the history's changes), or, off the loop, from every item sorted
/// (`LiveCollection.prepareOrder(for:)`). An order no live query group uses (`use(_:by:)`) is dropped at the
/// first version `idle` after its last group went, so a write places its change only in the orders of sorts
/// open now. At most `capacity` orders are kept, the least recently used dropped first; a version that replaced
/// the collection drops them all, and so does the collection when nobody follows it any more.
///
/// ```swift
/// var orders = LiveOrders<DocumentLiveQuery>()
/// orders.keep(.init(query: sorting, items: ranked), key: "+title")   // the collection by `?_sort=title`
/// orders.apply(version)                        // each version, in id order
/// let (items, total) = LiveOrders.held(of: orders.items("+title")!, query: query, margin: 256)
/// ```
struct LiveOrders<Query: LiveQuery> {
    typealias Ranked = LiveRanking<Query>.Ranked

    /// The most orders kept (each about 40 bytes per item).
    static var capacity: Int { 8 }

    /// One sort's order: its query (`LiveQuery.ordering`) and every item, by sort key and then by rank.
    struct Order: Sendable {
        let query: Query
        var items: LiveChunks<Ranked>

        /// Places `changes` (oldest first): each item before the change taken out, after it put in, each found
        /// by binary search: O(log n) comparisons and the move of one chunk each. Gives where each change took
        /// its item out and put it in.
        @discardableResult
        mutating func place(_ changes: [LiveItemChange<Query.Item>]) -> [LiveOrderPlace] {
            var places: [LiveOrderPlace] = []
            places.reserveCapacity(changes.count)
            for change in changes {
                var place = LiveOrderPlace()
                if let before = change.before {
                    let ranked = Ranked(entry: before, sortKey: query.sortKey(of: before.item))
                    let position = index(of: ranked)
                    if position < items.count, items[position].entry.key == before.key {
                        place.removed = position
                    } else {
                        // NB: not reached while sort keys are read the same way each time.
                        place.removed = items.firstIndex { $0.entry.key == before.key }
                    }
                    if let removed = place.removed { items.remove(at: removed) }
                }
                if let after = change.after {
                    let ranked = Ranked(entry: after, sortKey: query.sortKey(of: after.item))
                    let position = index(of: ranked)
                    items.insert(ranked, at: position)
                    place.inserted = position
                }
                places.append(place)
            }
            return places
        }

        /// The first index whose item does not come before `ranked` (by sort key, then by rank).
        private func index(of ranked: Ranked) -> Int {
            items.partitioningIndex { held in
                let order = query.order(held.sortKey, ranked.sortKey)
                return order < 0 || (order == 0 && held.entry.rank < ranked.entry.rank)
            }
        }
    }

    /// An order, when it was last read (`clock`), how many groups use it, and since when none does.
    private struct Kept {
        var order: Order
        var used: UInt64
        var groups = 0
        var idleSince: ContinuousClock.Instant? = .now
    }

    private var orders: [String: Kept] = [:]
    private var clock: UInt64 = 0
    /// How long an order no group uses is kept (it may be made for a query about to open).
    private let idle: Duration

    init(idle: Duration = .seconds(5)) { self.idle = idle }

    /// Whether an order of `key` is kept.
    func keeps(_ key: String) -> Bool { orders[key] != nil }

    /// The collection's items in the order of `key`, with their sort keys, as of the newest version applied;
    /// nil when it is not kept.
    mutating func items(_ key: String) -> LiveChunks<Ranked>? {
        guard var kept = orders[key] else { return nil }
        clock &+= 1
        kept.used = clock
        orders[key] = kept
        return kept.order.items
    }

    /// Keeps `order` (the collection's items, every one, in a sort's order as of the newest version) as the
    /// order of `key`, dropping the least recently used one past `capacity`.
    mutating func keep(_ order: Order, key: String) {
        clock &+= 1
        var kept = Kept(order: order, used: clock)
        if let groups = orders[key]?.groups, groups > 0 {
            kept.groups = groups
            kept.idleSince = nil
        }
        orders[key] = kept
        if orders.count > Self.capacity, let oldest = orders.min(by: { $0.value.used < $1.value.used })?.key {
            orders[oldest] = nil
        }
    }

    /// Counts a group of live queries that reads the order of `key` (`change` 1) or no longer does (-1).
    mutating func use(_ key: String, by change: Int) {
        guard var kept = orders[key] else { return }
        kept.groups += change
        kept.idleSince = kept.groups > 0 ? nil : .now
        orders[key] = kept
    }

    /// Places the changes of `version` (the one after those applied) in every kept order, after dropping those
    /// no group used for `idle`; a version that replaced the collection drops them all. Gives, by order, where
    /// each change took its item out and put it in (`LiveVersion.places`).
    @discardableResult
    mutating func apply(_ version: LiveVersion<Query.Item>) -> [String: [LiveOrderPlace]] {
        guard !orders.isEmpty else { return [:] }
        guard version.replaced == nil else {
            removeAll()
            return [:]
        }
        let now = ContinuousClock.now
        var places: [String: [LiveOrderPlace]] = [:]
        for key in Array(orders.keys) {
            // NB: taken out while it changes, so placing the changes does not copy its storage.
            guard var kept = orders.removeValue(forKey: key) else { continue }
            if let idleSince = kept.idleSince, now - idleSince > idle { continue }
            places[key] = kept.order.place(version.changes)
            orders[key] = kept
        }
        return places
    }

    /// Drops every order.
    mutating func removeAll() { orders.removeAll() }

    /// What a ranking of `query` holds of `order` (the collection's items in the query's order): the first
    /// items that pass, up to the window's end plus `margin` (every one when the window has no end or there is
    /// no margin), and how many pass: the others are only tested, or, when the query filters none, only
    /// counted. A query that filters none shares the order's chunks.
    static func held(of order: LiveChunks<Ranked>, query: Query, margin: Int?) -> (
        items: LiveChunks<Ranked>, total: Int
    ) {
        // NB: a window ending past any count the collection can reach holds every item (and no sum overflows).
        let capacity = margin.flatMap { margin in query.window.end.flatMap { $0 > Int.max / 4 ? nil : $0 + margin + 2 }
        }
        guard query.filtersItems else { return (capacity.map { order.head($0) } ?? order, order.count) }
        let passes = query.itemFilter()
        var items = LiveChunks<Ranked>()
        var total = 0
        for ranked in order where passes(ranked.entry.item) {
            if items.count < capacity ?? .max { items.append(ranked) }
            total += 1
        }
        return (items, total)
    }
}

/// Where one change of a version moved its item in a sort's kept order (`LiveOrders`), as the order stood: the
/// index the item was taken out of and the index it was put in at (after the removal). A ranking that holds the
/// same first items in the same order (a live query of that sort that filters none) finds the item there
/// after two comparisons instead of a binary search (`LiveRanking.apply`); a place that does not hold is
/// searched for as before.
struct LiveOrderPlace: Sendable, Equatable {
    var removed: Int?
    var inserted: Int?
}
