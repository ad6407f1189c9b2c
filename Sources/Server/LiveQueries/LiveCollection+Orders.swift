import Synchronization

extension LiveCollection {
    /// An order of the collection's items, each with its sort key.
    typealias Order = (items: LiveChunks<LiveRanking<Query>.Ranked>, id: UInt64)

    /// `query`'s first items in its order and its total at the newest version, for a query without an equality
    /// filter. A sorted query reads them from its sort's order kept up to date from the changes (`sortOrder`),
    /// whatever its window: its first items up to the window's end plus the margin, or every one that passes
    /// when the window has no end. An unsorted one whose window ends reads them from a kept order of the source
    /// (`ordered`: the collection's own) of the version it shows, brought up to date by the history's changes
    /// since. Nil when no order serves it, the history no longer reaches back to it, its items are not those
    /// the collection had then, or the changes left it short.
    func ranked(_ query: Query, present: Set<String>) -> Snapshot? {
        let reading = query.reading(present: present)
        guard reading.indexTerms == nil else { return nil }
        if let (orderKey, sorting) = reading.ordering {
            guard let order = sortOrder(orderKey, sorting, present: present, fields: query.presenceFields) else {
                return nil
            }
            let (items, total) = LiveOrders<Query>.held(
                of: order.items, query: reading, margin: engine.limits.windowMargin)
            return ([], order.id, present, total, items)
        }
        guard reading.window.end != nil, let margin = engine.limits.windowMargin,
            let (order, orderID) = ordered?(reading),
            let (items, total) = LiveRanking<Query>.held(of: order, query: reading, margin: margin),
            let (held, changes, id) = entries(of: items, at: orderID, present: present, fields: query.presenceFields),
            let ranking = LiveRanking(reading, held: held, total: total, changes: changes, margin: margin)
        else { return nil }
        // NB: the ranking's items go to the group as they are (with their sort keys, read once).
        return ([], id, present, ranking.total, ranking.items)
    }

    /// The collection's items in the order `sorting` (a query's `ordering`, named `orderKey`) gives, as of the
    /// newest version, and its id, while the query's presence `fields` are still `present` (nil: whatever they
    /// are). The order is kept from then on and follows every version (`LiveOrders`). When it is not kept yet,
    /// it is made from a kept order of the source (`ordered`) brought up to date by the history's changes, or,
    /// with `everyItem`, from every item sorted (off the loop: `prepareOrder(for:)`). Nil when the collection
    /// is not followed or no order can be made.
    func sortOrder(
        _ orderKey: String, _ sorting: Query, present: Set<String>?, fields: [String], everyItem: Bool = false
    ) -> Order? {
        let kept = state.withLock { state -> Order?? in
            guard state.mirror != nil else { return .some(nil) }
            if let present, state.presence.present(fields) != present { return .some(nil) }
            return state.orders.items(orderKey).map { ($0, state.newestID) }
        }
        if let kept { return kept }
        var made: Order?
        if let (order, orderID) = ordered?(sorting),
            let (held, changes, id) = entries(of: order, at: orderID, present: nil, fields: []),
            let ranking = LiveRanking(sorting, held: held, total: held.count, changes: changes, margin: nil)
        {
            made = (ranking.items, id)
        } else if everyItem, let (every, id) = state.withLock({ state in state.mirror.map { ($0, state.newestID) } }) {
            // NB: the entries are listed and sorted outside the lock; the copy shares the mirror's storage.
            made = (LiveRanking(sorting, entries: every.entries).items, id)
        }
        guard let made else { return nil }
        return state.withLock { state -> Order? in
            guard state.mirror != nil, made.id >= state.floor, made.id <= state.newestID else { return nil }
            if let present, state.presence.present(fields) != present { return nil }
            let since = state.history.filter { $0.id > made.id }
            guard since.allSatisfy({ $0.replaced == nil }) else { return nil }
            var order = LiveOrders<Query>.Order(query: sorting, items: made.items)
            order.place(since.flatMap(\.changes))
            state.orders.keep(order, key: orderKey)
            return (order.items, state.newestID)
        }
    }

    /// Makes the order `query`'s sort gives when it is not kept (`sortOrder`, from every item if need be) and
    /// keeps the collection followed a few seconds though no live query is open: called off the loop before a
    /// sorted live query opens (its group then reads its first items from the order), or before one is asked
    /// again (a `503`).
    func prepareOrder(for query: Query) {
        guard let (orderKey, sorting) = query.ordering else { return }
        follow()
        state.withLock { $0.keptUntil = .now + .seconds(Self.keptSeconds) }
        _ = sortOrder(orderKey, sorting, present: nil, fields: [], everyItem: true)
    }

    /// The items `query` answers (its window), read from its sort's kept order as the collection is now: the
    /// page a sorted query's checks look at when the source's sort index is older than the collection. Nil
    /// when the query has no sort or its order is not kept (the collection is not followed, or no live query
    /// of that sort made it).
    func sortedAnswer(_ query: Query) -> [Item]? {
        guard let (orderKey, sorting) = query.ordering, !needsOrder(query),
            let order = sortOrder(orderKey, sorting, present: nil, fields: [])
        else { return nil }
        let (items, total) = LiveOrders<Query>.held(of: order.items, query: query, margin: 0)
        let (lower, upper) = query.window.bounds(count: total)
        return items[min(lower, items.count)..<min(upper, items.count)].map(\.entry.item)
    }

    /// Counts a group of `query` that reads its sort's order (`change` 1) or no longer does (-1): an order no
    /// group reads is dropped a few seconds later (`LiveOrders`).
    func useOrder(of query: Query, by change: Int) {
        // NB: a query with an equality filter reads its items through the field's index, not the order.
        guard query.indexTerms == nil, let orderKey = query.ordering?.key else { return }
        state.withLock { $0.orders.use(orderKey, by: change) }
    }

    /// Whether `query` has a sort whose order is not kept: it is made off the loop before the query opens.
    func needsOrder(_ query: Query) -> Bool {
        guard let orderKey = query.ordering?.key else { return false }
        return !state.withLock { $0.orders.keeps(orderKey) }
    }

    /// Seconds the items stay followed after `prepareOrder` with no live query open.
    private static var keptSeconds: Int64 { 5 }

    /// The entries `items` (the collection's items, or some of them, as the version `orderID` had them) were
    /// then, the history's changes since, and the id of the newest version, while the query's presence `fields`
    /// are `present` and no version since changed them (nil: whatever they are). Nil when the history no longer
    /// reaches back to `orderID`, the collection has not reached it, a version since replaced the collection,
    /// or the items are not those the collection had then.
    func entries(of items: [Item], at orderID: UInt64, present: Set<String>?, fields: [String]) -> (
        held: [LiveEntry<Item>], changes: [LiveItemChange<Item>], id: UInt64
    )? {
        state.withLock { state in
            guard let mirror = state.mirror, orderID >= state.floor, orderID <= state.newestID else { return nil }
            let versions = state.history.filter { $0.id > orderID }
            guard versions.allSatisfy({ $0.replaced == nil }) else { return nil }
            if let present {
                guard state.presence.present(fields) == present, versions.allSatisfy(\.presence.isEmpty) else {
                    return nil
                }
            }
            let changes = versions.flatMap(\.changes)
            // An item changed since the order's version was the first change's `before` then.
            var earlier: [String: LiveEntry<Item>?] = [:]
            for change in changes where earlier[change.key] == nil { earlier[change.key] = .some(change.before) }
            var held: [LiveEntry<Item>] = []
            held.reserveCapacity(items.count)
            for item in items {
                let itemKey = key(item)
                let entry = earlier[itemKey] ?? mirror.entry(forKey: itemKey)
                guard let entry, entry.item == item else { return nil }
                held.append(entry)
            }
            return (held, changes, state.newestID)
        }
    }
}
