import Bitsets
import Domain
import HTTP
import StrictJSON

extension DocumentSortIndex {
    /// What a range filter's answer takes from the order of its field: the items that pass it, in the
    /// collection's order (or already in the query's sort), and the query left to apply to them.
    struct Ranged {
        var documents: [StoredDocument]
        var presorted: Bool
        var rest: DocumentQuery
    }

    /// The most items a range may hold and still be put back in the collection's order per request.
    static let maxReordered = 5_000

    /// The range filter of `query` (`_gte`, `_lte`, v1's `:gt`, `:lt`, …) a large collection answers from the
    /// order of that field, found by binary search instead of reading every item; nil when there is none, a
    /// search narrows the items instead, or the query sorts by anything but that field ascending.
    /// `anySort`: whatever the query sorts by, and beside a search (its places are then marked, intersected with
    /// the search's, and the query's order walked for them: `DocumentFieldIndex.answer`).
    static func range(_ query: DocumentQuery, on resource: DocumentResource, anySort: Bool = false) -> (
        index: Int, path: [String]
    )? {
        guard query.search == nil || anySort, let range = query.rangeFilter, resource.items.count >= threshold,
            anySort || query.sortKeys.isEmpty
                || (query.sortKeys.count == 1 && query.sortKeys[0].path == range.path && !query.sortKeys[0].descending)
        else { return nil }
        return range
    }

    /// The places in the collection of the items that pass `query`'s range filter (`range`), marked, from
    /// `order`, the kept order of its field.
    static func marks(
        _ query: DocumentQuery, range: (index: Int, path: [String]), order: Order, idPath: [String]
    ) -> Bitset {
        var marked = Bitset(size: order.collection.count)
        let runs = query.rangePlaces(in: order.documents) { document in
            range.path == idPath ? document.id?.value : document.object.value(at: range.path)
        }
        // NB: each run's places copied at once and set in C (`Bitset`), where a loop over the run's ranks cost
        // about 100 ms for half of 100,000 items in a debug build.
        for run in runs { marked.insert(contentsOf: Array(order.placesByRank[run])) }
        return marked
    }

    /// The answer's items for `query`'s range filter (`range`), from the kept order of its field; nil when that
    /// order is not kept for the collection as it is now, or more than `maxReordered` items pass and the query
    /// does not sort by the field (the per-item filter then answers, within the budget or not).
    func ranged(
        _ query: DocumentQuery, on resource: DocumentResource, range: (index: Int, path: [String]), idPath: [String]
    ) -> Ranged? {
        guard let order = sorted(DocumentQuery(ordering: range.path), on: resource) else { return nil }
        let runs = query.rangePlaces(in: order.documents) { document in
            range.path == idPath ? document.id?.value : document.object.value(at: range.path)
        }
        let rest = query.without(filterAt: range.index)
        if !query.sortKeys.isEmpty {
            var found: [StoredDocument] = []
            for run in runs { found += order.documents[run] }
            return Ranged(documents: found, presorted: true, rest: rest)
        }
        guard runs.reduce(0, { $0 + $1.count }) <= Self.maxReordered else { return nil }
        let places = runs.flatMap { run in run.map { order.placesByRank[$0] } }.sorted()
        return Ranged(documents: places.map { order.collection[$0] }, presorted: false, rest: rest)
    }
}
