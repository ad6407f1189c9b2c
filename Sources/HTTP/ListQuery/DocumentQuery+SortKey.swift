import Bitsets
package import StrictJSON

/// An item's values of a `DocumentQuery`'s sort keys, read once: what a live query keeps beside each item of
/// its result, so that placing a changed item costs comparisons, not a parse of its neighbours.
package struct DocumentSortKey: Sendable {
    fileprivate var values: [SortValue]

    /// The key of every item of a query without a sort.
    package static let unsorted = DocumentSortKey(values: [])
}

extension DocumentQuery {
    /// The values of `object` the query sorts by; `id` is the item's id as the item holds it (a sort by the
    /// id field reads it, as `apply`'s `knownValue` does).
    package func sortKey(of object: JSONObject, id: JSONValue?, idField: String) -> DocumentSortKey {
        DocumentSortKey(
            values: sortKeys.map { key in
                SortValue(key.path == [idField] ? (id ?? object.value(at: key.path)) : object.value(at: key.path))
            })
    }

    /// -1, 0 or 1: how an item with `lhs` sorts against one with `rhs`, as `apply` sorts (0: tied, the
    /// collection's order decides).
    package func order(_ lhs: DocumentSortKey, _ rhs: DocumentSortKey) -> Int {
        for position in 0..<min(lhs.values.count, rhs.values.count) {
            let order = lhs.values[position].order(rhs.values[position])
            if order != 0 { return sortKeys[position].descending ? -order : order }
        }
        return 0
    }
}

extension DocumentQuery {
    /// The places of `items` in the order of the query's sort keys, ties by place: the order `apply` sorts
    /// them in, each item's keys read once (`object` asked at most once per item, `knownValue` as for
    /// `apply`), then sorted in C (`FlatSortKeys`), without the work budget (a sort index's build, off the loop).
    package func sortedPlaces<Item>(
        of items: [Item], object: (Item) -> JSONObject, knownValue: (Item, [String]) -> JSONValue? = { _, _ in nil }
    ) -> [Int] {
        let paths = sortKeys.map(\.path)
        guard !paths.isEmpty else { return Array(items.indices) }
        var keys = FlatSortKeys(descending: sortKeys.map(\.descending), capacity: items.count)
        for item in items {
            var members: JSONObject?
            for path in paths {
                var value = knownValue(item, path)
                if value == nil {
                    let read = members ?? object(item)
                    members = read
                    value = read.value(at: path)
                }
                switch SortValue(value) {
                case .number(let number): keys.append(.number(number))
                case .text(let text): keys.appendText(text)
                case .flag(let flag): keys.append(.flag(flag))
                case .other: keys.append(.other)
                case .missing: keys.append(.missing)
                }
            }
        }
        return keys.sortedPlaces()
    }
}
