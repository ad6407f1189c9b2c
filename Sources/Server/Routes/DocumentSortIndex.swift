import Domain
import HTTP
import StrictJSON
import Synchronization

/// A large collection's items in the order of a query's sort keys, kept and brought up to date with each
/// write: the index a `_sort` of 100,000 items answers from within the work budget, as json-server answers it.
///
/// Sorting every item on each request costs more than the budget (about 1.7 million comparisons); so the
/// first request of a sort builds the order on a worker, off the loop, as a field's index is built, and
/// every later one with the same sort keys takes the items in that order and only filters and pages them.
/// After a write the next request makes the order of the collection as it is now from the kept one and the
/// items changed, added or removed since, each placed by binary search (`DocumentSortIndex+Changes`), rather
/// than sorting every item again; so do a live query's first items (`kept`). At most `capacity` orders are
/// kept, the least recently used dropped first. One per collection route.
final class DocumentSortIndex: Sendable {
    /// Collections smaller than this are sorted per request, within the budget.
    static let threshold = 5_000
    /// The most orders kept (each one reference per item: 800 KB for 100,000 items).
    static let capacity = 8

    /// The items in order, each one's place in it (its rank), and the collection's places in order; the
    /// collection's items in its order; the state it is of.
    struct Order: Sendable {
        var documents: [StoredDocument]
        var placesByRank: [Int]
        var collection: [StoredDocument]
        var seq: Int64
        /// The order sorted in full that this one was made from (itself, when it was).
        let built: Built
        /// Each rank in `built` made a rank in this order, -1 for an item no longer held; empty: the same.
        var rankOfBuiltRank: [Int] = []
        /// The items changed or added since `built`, each with its place (`Placed`).
        var placed: [ObjectIdentifier: Placed] = [:]

        /// An item's rank: its place in `documents`; nil for one the order does not hold.
        func rank(of document: StoredDocument) -> Int? {
            let id = ObjectIdentifier(document)
            if let placed = placed[id] { return placed.rank }
            guard let rank = built.ranks[id] else { return nil }
            guard !rankOfBuiltRank.isEmpty else { return rank }
            return rankOfBuiltRank[rank] >= 0 ? rankOfBuiltRank[rank] : nil
        }
    }

    /// An order of every item (sorted, or made again from a later state's order), with each item's rank.
    final class Built: Sendable {
        let documents: [StoredDocument]
        let ranks: [ObjectIdentifier: Int]
        let placesByRank: [Int]
        let collection: [StoredDocument]
        /// The state `collection` is of.
        let seq: Int64

        init(documents: [StoredDocument], placesByRank: [Int], collection: [StoredDocument], seq: Int64) {
            var ranks: [ObjectIdentifier: Int] = [:]
            ranks.reserveCapacity(documents.count)
            for rank in documents.indices { ranks[ObjectIdentifier(documents[rank])] = rank }
            self.documents = documents
            self.ranks = ranks
            self.placesByRank = placesByRank
            self.collection = collection
            self.seq = seq
        }
    }

    /// An item changed or added since an order was built: the rank in the built order it goes before, its sort
    /// key, and its rank in the order made with it.
    struct Placed: Sendable {
        var point: Int
        var key: DocumentSortKey
        var rank: Int
    }

    private struct Entry {
        var order: Order
        var used: UInt64
    }

    private let entries = Mutex<(orders: [String: Entry], clock: UInt64, rebuilding: Set<String>)>(([:], 0, []))
    /// Where an order made from many changes is built again (`rebuilds(on:)`).
    private let workers = Mutex<WorkerPool?>(nil)

    /// Builds again on `workers` an order made from more than `DocumentIndexOverlay.limit` changed items, so
    /// that the next one is made from few.
    func rebuilds(on workers: WorkerPool) { self.workers.withLock { $0 = workers } }

    /// Whether `query` on `resource` sorts enough items to want an index (none when an equality filter
    /// narrows the items through a field's index first).
    static func wanted(_ query: DocumentQuery, on resource: DocumentResource, narrowed: Bool) -> Bool {
        !narrowed && !query.sortKeys.isEmpty && resource.items.count >= threshold
    }

    /// How many items of a large `resource` pass the equality filter `indexed`, when the field's index is built
    /// (or, on a collection that keeps its items' members, is built at once): whether they are many decides
    /// whether a sort of them answers from the sort index, and another filter from its field's text. Nil on a
    /// small collection, or while the index is yet to be built (on a worker).
    static func matching(_ indexed: (path: [String], values: [String]), on resource: DocumentResource) -> Int? {
        guard resource.items.count >= threshold, !resource.needsIndexBuild(at: indexed.path) else { return nil }
        // NB: counted from the index, where taking 60,000 of 100,000 items cost 10-15 ms in a debug build.
        return resource.count(whereValueAt: indexed.path, isOneOf: indexed.values)
            ?? resource.documents(whereValueAt: indexed.path, isOneOf: indexed.values).count
    }

    /// The items in the order of `query`'s sort keys for the collection as it is now: kept, or made from the
    /// kept order of an earlier state when at most `placing` of the items changed or added since are yet to
    /// be placed (each costs a few dozen comparisons); nil otherwise.
    func sorted(_ query: DocumentQuery, on resource: DocumentResource, placing: Int = DocumentIndexOverlay.limit)
        -> Order?
    {
        let key = Self.key(query)
        let (items, seq) = resource.itemsAndSeq
        guard let order = kept(query), order.seq <= seq else { return nil }
        if order.seq == seq { return order }
        guard let made = Self.order(query, from: order, now: items, seq: seq, placing: placing) else {
            return nil
        }
        let rebuild = entries.withLock { state in
            if let entry = state.orders[key], entry.order.seq < seq { state.orders[key]?.order = made }
            return made.placed.count > DocumentIndexOverlay.limit && state.rebuilding.insert(key).inserted
        }
        if rebuild { self.rebuild(key) }
        return made
    }

    /// The order of `query`'s sort keys kept for the collection as it was at some state (`Order.seq`), not
    /// necessarily the newest: a live query brings it up to date from the changes since.
    func kept(_ query: DocumentQuery) -> Order? {
        let key = Self.key(query)
        return entries.withLock { state in
            guard var entry = state.orders[key] else { return nil }
            state.clock &+= 1
            entry.used = state.clock
            state.orders[key] = entry
            return entry.order
        }
    }

    /// The build of `query`'s order on `resource` when it is not kept for the collection as it is now, nor
    /// made at once from an earlier one: on a worker, it is made from the earlier one however many items
    /// changed, up to `DocumentIndexOverlay`'s bound, else sorted in full.
    func missingBuild(_ query: DocumentQuery, on resource: DocumentResource, idPath: [String]) -> (
        @Sendable () -> Void
    )? {
        guard sorted(query, on: resource) == nil else { return nil }
        return {
            guard self.sorted(query, on: resource, placing: Self.changesLimit) == nil else { return }
            self.build(query, on: resource, idPath: idPath)
        }
    }

    /// How a query's answer takes the kept order: without a filter, the items in that order (`presorted`);
    /// with one, each item's place in it (`rank`), by which the items that pass are sorted. Neither when the
    /// order is not kept for the collection as it is now.
    func use(_ query: DocumentQuery, on resource: DocumentResource) -> (
        presorted: [StoredDocument]?, rank: ((StoredDocument) -> Int)?
    ) {
        guard let order = sorted(query, on: resource) else { return (nil, nil) }
        if query.filters.isEmpty && query.search == nil && query.condition == nil { return (order.documents, nil) }
        return (nil, { order.rank(of: $0) ?? Int.max })
    }

    /// Sorts the collection's items by `query`'s sort keys, without the work budget (on a worker), and keeps
    /// the order: each item's keys read once into flat arrays and sorted in C (`DocumentQuery.sortedPlaces`).
    func build(_ query: DocumentQuery, on resource: DocumentResource, idPath: [String]) {
        let (items, seq) = resource.itemsAndSeq
        let documents = items.documents
        let placesByRank = query.sortedPlaces(
            of: documents, object: { $0.object },
            knownValue: { document, path in path == idPath ? document.id?.value : nil })
        let built = Built(
            documents: placesByRank.map { documents[$0] }, placesByRank: placesByRank, collection: documents,
            seq: seq)
        keep(
            Order(
                documents: built.documents, placesByRank: built.placesByRank, collection: documents, seq: seq,
                built: built), for: query)
    }

    private func keep(_ order: Order, for query: DocumentQuery) {
        let key = Self.key(query)
        entries.withLock { state in
            state.clock &+= 1
            state.orders[key] = Entry(order: order, used: state.clock)
            if state.orders.count > Self.capacity,
                let oldest = state.orders.min(by: { $0.value.used < $1.value.used })?.key
            {
                state.orders[oldest] = nil
            }
        }
    }

    /// Builds again, on a worker, the order kept under `key` from its items in order (no item is read or
    /// compared), so that the orders made after it are made from few changes.
    private func rebuild(_ key: String) {
        let submitted = workers.withLock { $0 }?.submit {
            let order = self.entries.withLock { $0.orders[key]?.order }
            if let order {
                let built = Built(
                    documents: order.documents, placesByRank: order.placesByRank, collection: order.collection,
                    seq: order.seq)
                let rebuilt = Order(
                    documents: built.documents, placesByRank: built.placesByRank, collection: built.collection,
                    seq: order.seq, built: built)
                self.entries.withLock { state in
                    // NB: kept unless an order of a later state, made from another built order, is kept.
                    if let entry = state.orders[key], entry.order.seq <= order.seq || entry.order.built === order.built
                    {
                        state.orders[key]?.order = rebuilt
                    }
                }
            }
            self.entries.withLock { _ = $0.rebuilding.remove(key) }
        }
        if submitted != true { entries.withLock { _ = $0.rebuilding.remove(key) } }
    }

    private static func key(_ query: DocumentQuery) -> String {
        query.sortKeys.map { ($0.descending ? "-" : "+") + $0.path.joined(separator: "\u{0}") }
            .joined(separator: "\u{1}")
    }
}

extension DocumentQuery {
    /// Only `query`'s sort keys: no filter, search, condition or window.
    static func sortingOnly(_ query: DocumentQuery) -> DocumentQuery {
        var sorting = query
        sorting.filters = []
        sorting.search = nil
        sorting.condition = nil
        sorting.envelope = false
        return sorting
    }
}
