import Domain
import HTTP
import StrictJSON
import Synchronization

/// A large collection's items in the order of a query's sort keys, kept while the collection is unchanged:
/// the index a `_sort` of 100,000 items answers from within the work budget, as json-server answers it.
///
/// Sorting every item on each request costs more than the budget (about 1.7 million comparisons); so the
/// first request of a sort builds the order on a worker, off the loop, as a field's index is built, and
/// every later one with the same sort keys takes the items in that order and only filters and pages them.
/// A write makes the kept orders stale (they are built again by the next request that sorts), and at most
/// `capacity` orders are kept, the least recently used dropped first. One per collection route.
final class DocumentSortIndex: Sendable {
    /// Collections smaller than this are sorted per request, within the budget.
    static let threshold = 5_000
    /// The most orders kept (each one reference per item: 800 KB for 100,000 items).
    static let capacity = 8

    /// The items in order, each one's place in it, and in the collection (by identity); the collection's
    /// places in order; the collection's items in its order; the state it is of.
    struct Order {
        var documents: [StoredDocument]
        var ranks: [ObjectIdentifier: Int]
        var positions: [ObjectIdentifier: Int]
        var placesByRank: [Int]
        var collection: [StoredDocument]
        var seq: Int64
    }

    private struct Entry {
        var seq: Int64
        var order: Order
        var used: UInt64
    }

    private let entries = Mutex<(orders: [String: Entry], clock: UInt64)>(([:], 0))

    /// Whether `query` on `resource` sorts enough items to want an index (none when an equality filter
    /// narrows the items through a field's index first).
    static func wanted(_ query: DocumentQuery, on resource: DocumentResource, narrowed: Bool) -> Bool {
        !narrowed && !query.sortKeys.isEmpty && resource.items.count >= threshold
    }

    /// The items of a large `resource` that pass the equality filter `indexed`, and the state they are of,
    /// when the field's index is built: whether they are many decides whether a sort of them answers from the
    /// sort index, and another filter from its field's text. Nil on a small collection, or while the index
    /// is yet to be built (on a worker).
    static func lookUp(_ indexed: (path: [String], values: [String]), on resource: DocumentResource) -> (
        documents: [StoredDocument], seq: Int64
    )? {
        guard resource.items.count >= threshold, !resource.needsIndexBuild(at: indexed.path) else { return nil }
        let (documents, seq) = resource.documentsAndSeq(whereValueAt: indexed.path, isOneOf: indexed.values)
        return (documents, seq)
    }

    /// The items in the order of `query`'s sort keys, when that order is kept for the collection as it is now.
    func sorted(_ query: DocumentQuery, on resource: DocumentResource) -> Order? {
        let key = Self.key(query)
        let seq = resource.itemsAndSeq.seq
        return entries.withLock { state in
            guard var entry = state.orders[key], entry.seq == seq else { return nil }
            state.clock &+= 1
            entry.used = state.clock
            state.orders[key] = entry
            return entry.order
        }
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

    /// The build of `query`'s order on `resource` when it is not kept for the collection as it is now.
    func missingBuild(_ query: DocumentQuery, on resource: DocumentResource, idPath: [String]) -> (
        @Sendable () -> Void
    )? {
        guard sorted(query, on: resource) == nil else { return nil }
        return { self.build(query, on: resource, idPath: idPath) }
    }

    /// How a query's answer takes the kept order: without a filter, the items in that order (`presorted`);
    /// with one, each item's place in it (`rank`), by which the items that pass are sorted. Neither when the
    /// order is not kept for the collection as it is now.
    func use(_ query: DocumentQuery, on resource: DocumentResource) -> (
        presorted: [StoredDocument]?, rank: ((StoredDocument) -> Int)?
    ) {
        guard let order = sorted(query, on: resource) else { return (nil, nil) }
        if query.filters.isEmpty && query.search == nil && query.condition == nil { return (order.documents, nil) }
        let ranks = order.ranks
        return (nil, { ranks[ObjectIdentifier($0)] ?? Int.max })
    }

    /// Sorts the collection's items by `query`'s sort keys, without the work budget (on a worker), and keeps
    /// the order.
    func build(_ query: DocumentQuery, on resource: DocumentResource, idPath: [String]) {
        let (items, seq) = resource.itemsAndSeq
        var sorting = DocumentQuery.sortingOnly(query)
        sorting.window = .all
        let documents = items.documents
        guard
            let order = try? sorting.apply(
                to: documents, bounded: false, object: { $0.object },
                knownValue: { document, path in path == idPath ? document.id?.value : nil })
        else { return }
        var ranks: [ObjectIdentifier: Int] = [:]
        ranks.reserveCapacity(order.items.count)
        for (place, document) in order.items.enumerated() { ranks[ObjectIdentifier(document)] = place }
        var positions: [ObjectIdentifier: Int] = [:]
        positions.reserveCapacity(documents.count)
        for (place, document) in documents.enumerated() { positions[ObjectIdentifier(document)] = place }
        let key = Self.key(query)
        let kept = Order(
            documents: order.items, ranks: ranks, positions: positions,
            placesByRank: order.items.map { positions[ObjectIdentifier($0)] ?? 0 }, collection: documents, seq: seq)
        entries.withLock { state in
            state.clock &+= 1
            state.orders[key] = Entry(seq: seq, order: kept, used: state.clock)
            if state.orders.count > Self.capacity,
                let oldest = state.orders.min(by: { $0.value.used < $1.value.used })?.key
            {
                state.orders[oldest] = nil
            }
        }
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
