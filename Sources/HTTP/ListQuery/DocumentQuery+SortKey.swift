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
