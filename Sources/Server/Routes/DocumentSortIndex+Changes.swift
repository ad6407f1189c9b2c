import Domain
import HTTP

extension DocumentSortIndex {
    /// The most items changed, added or removed since an order was built that a later state's order is made
    /// from; past it the order is sorted again in full.
    static let changesLimit = 4_096

    /// The order of `query`'s sort keys for the collection holding `items` at `seq`, made from `order`, of
    /// an earlier state: the items its built order (`Order.built`) holds that are still there unchanged keep
    /// their order, and each item changed or added since is put before the first of them it sorts before
    /// (by its sort key, then its place in the collection, as a sort orders ties), found by binary search.
    /// Nil when more than `changesLimit` items changed, were added or removed since the built order, or more
    /// than `placing` of them are yet to be placed (`order` has the others' places).
    static func order(
        _ query: DocumentQuery, from order: Order, now items: DocumentItems, seq: Int64, placing: Int
    ) -> Order? {
        let built = order.built
        guard
            let overlay = DocumentIndexOverlay(
                kept: built.collection, keptSeq: built.seq, now: items, limit: changesLimit)
        else { return nil }
        let documents = overlay.documents
        var unplaced = 0
        for place in overlay.changed where order.placed[ObjectIdentifier(documents[place])] == nil {
            unplaced += 1
            if unplaced > placing { return nil }
        }
        // NB: the sort keys of the built order's items the binary searches compare with, each read once.
        var keys: [Int: DocumentSortKey] = [:]
        func key(at rank: Int) -> DocumentSortKey {
            if let key = keys[rank] { return key }
            let key = Self.key(of: built.documents[rank], query)
            keys[rank] = key
            return key
        }
        // Each changed or added item: the rank in the built order it goes before, its key, its place in the
        // built order's collection (an added item after every one), and its place now.
        var inserted: [(point: Int, key: DocumentSortKey, position: Int, place: Int)] = []
        inserted.reserveCapacity(overlay.changed.count)
        for (place, replaced) in zip(overlay.changed, overlay.replaced) {
            let position = replaced ?? (built.collection.count + place)
            if let placed = order.placed[ObjectIdentifier(documents[place])] {
                inserted.append((placed.point, placed.key, position, place))
                continue
            }
            let itemKey = Self.key(of: documents[place], query)
            var (low, high) = (0, built.documents.count)
            while low < high {
                let middle = (low + high) / 2
                let order = query.order(itemKey, key(at: middle))
                if order < 0 || (order == 0 && position < built.placesByRank[middle]) {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            inserted.append((low, itemKey, position, place))
        }
        inserted.sort { lhs, rhs in
            if lhs.point != rhs.point { return lhs.point < rhs.point }
            let order = query.order(lhs.key, rhs.key)
            return order != 0 ? order < 0 : lhs.position < rhs.position
        }
        let gone = (overlay.removed + overlay.replaced.compactMap { $0 }).compactMap {
            built.ranks[ObjectIdentifier(built.collection[$0])]
        }.sorted()
        return merged(built, inserted.map { ($0.point, $0.key, $0.place) }, gone: gone, overlay: overlay, seq: seq)
    }

    /// The order of `built`'s items but those at the ranks `gone` (ascending), with `inserted` (in order) put
    /// before the ranks they name.
    private static func merged(
        _ built: Built, _ inserted: [(point: Int, key: DocumentSortKey, place: Int)], gone: [Int],
        overlay: DocumentIndexOverlay, seq: Int64
    ) -> Order {
        let count = built.documents.count
        var documents: [StoredDocument] = []
        documents.reserveCapacity(overlay.documents.count)
        var placesByRank: [Int] = []
        placesByRank.reserveCapacity(overlay.documents.count)
        var rankOfBuiltRank = [Int](repeating: -1, count: count)
        var placed: [ObjectIdentifier: Placed] = [:]
        placed.reserveCapacity(inserted.count)
        // NB: each place in the built order's collection now, when items were removed since.
        let placesNow = overlay.removed.isEmpty ? [] : overlay.placesNow()
        // NB: plain loops over runs of the built order's ranks, no nested function capturing the arrays: each
        // access to a captured array is checked for exclusivity, several times the cost in a debug build.
        var (start, nextGone, nextInserted) = (0, 0, 0)
        while true {
            let goneRank = nextGone < gone.count ? gone[nextGone] : count
            let point = nextInserted < inserted.count ? inserted[nextInserted].point : count + 1
            let stop = min(goneRank, point, count)
            if start < stop {
                var rank = documents.count
                documents.append(contentsOf: built.documents[start..<stop])
                if placesNow.isEmpty {
                    placesByRank.append(contentsOf: built.placesByRank[start..<stop])
                } else {
                    for builtRank in start..<stop { placesByRank.append(placesNow[built.placesByRank[builtRank]]) }
                }
                for builtRank in start..<stop {
                    rankOfBuiltRank[builtRank] = rank
                    rank += 1
                }
            }
            start = stop
            if point == stop {
                let item = inserted[nextInserted]
                placed[ObjectIdentifier(overlay.documents[item.place])] = Placed(
                    point: item.point, key: item.key, rank: documents.count)
                documents.append(overlay.documents[item.place])
                placesByRank.append(item.place)
                nextInserted += 1
                continue
            }
            if stop == count { break }
            start = stop + 1
            nextGone += 1
        }
        return Order(
            documents: documents, placesByRank: placesByRank, collection: overlay.documents, seq: seq, built: built,
            rankOfBuiltRank: rankOfBuiltRank, placed: placed)
    }

    /// `document`'s values of `query`'s sort keys.
    private static func key(of document: StoredDocument, _ query: DocumentQuery) -> DocumentSortKey {
        query.sortKey(of: document.object, id: nil, idField: "")
    }
}
