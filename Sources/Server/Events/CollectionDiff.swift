/// The change between two snapshots of a list, as a diffable data source applies it (`?diff=1`):
/// `{"inserted": [items], "updated": [items], "deleted": [ids]}`.
///
/// ```swift
/// CollectionDiff(from: [a, b], to: [b2, c])  // inserted [c], updated [b2], deleted [a.id]
/// ```
struct CollectionDiff<Element: Identifiable & Equatable & Encodable>: Encodable
where Element.ID: Encodable {
    /// Items whose id was not there before, in their new order.
    var inserted: [Element]
    /// Items whose id was there with a different value, in their new order.
    var updated: [Element]
    /// Ids that are gone, in their old order.
    var deleted: [Element.ID]

    /// The change that turns `old` into `new` (matching items by id).
    init(from old: some Collection<Element>, to new: some Collection<Element>) {
        var before: [Element.ID: Element] = [:]
        before.reserveCapacity(old.count)
        for item in old { before[item.id] = item }
        var inserted: [Element] = []
        var updated: [Element] = []
        var present = Set<Element.ID>()
        present.reserveCapacity(new.count)
        for item in new {
            present.insert(item.id)
            if let previous = before[item.id] {
                if previous != item { updated.append(item) }
            } else {
                inserted.append(item)
            }
        }
        self.inserted = inserted
        self.updated = updated
        self.deleted = old.map(\.id).filter { !present.contains($0) }
    }
}
