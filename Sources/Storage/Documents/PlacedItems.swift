/// A shared database's resource (`DocumentRows` with their places) as a rewind (`DocumentRewind`) takes it
/// back: its items by key, each with its place and JSON; an entry is undone by putting its item back at its place
/// (`[place,item]`) or removing the one it made (`null`), and the items are in place order again at the end.
///
/// ```swift
/// let rewind = DocumentRewind(start.resources, recent: start.recent, count: 1024)   // PlacedItems
/// ```
package struct PlacedItems: RewindItems {
    private var items: [String: (place: Int64, body: String)]

    /// `resource`'s items; nil when it was read without its places.
    package init?(_ resource: DocumentRows) {
        guard resource.places.count == resource.items.count else { return nil }
        let pairs = zip(resource.items, resource.places).map { item, place in (item.key, (place, item.body)) }
        items = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    package static func name(of resource: DocumentRows) -> String { resource.name }

    package mutating func undo(_ key: String?, now: String?, before: ItemBefore) -> Bool {
        let key = key ?? ""
        guard items[key]?.body == now else { return false }
        switch before {
        case .none: items[key] = nil
        case .placed(let place, let body): items[key] = (place, body)
        case .inPlace, .deleted: return false
        }
        return true
    }

    package func replacingItems(of resource: DocumentRows) -> DocumentRows {
        let ordered = items.sorted { ($0.value.place, $0.key) < ($1.value.place, $1.key) }
        return DocumentRows(
            name: resource.name, kind: resource.kind, items: ordered.map { ($0.key, $0.value.body) },
            places: ordered.map(\.value.place), largestID: resource.largestID)
    }

    /// `recent` (newest first) as the seeds' replay reads it (`SeedRewind`): each row's item before it as the
    /// item itself (nil: the entry created it), up to the first row whose item before is not known (an entry of
    /// an older server), which the replay could not undo.
    package static func itemsBefore(_ recent: [JournalRow]) -> [JournalRow] {
        var rows: [JournalRow] = []
        for row in recent {
            switch row.before.flatMap(ItemBefore.init) {
            case .none?: rows.append(JournalRow(seq: row.seq, change: row.change, before: nil))
            case .placed(_, let item)?: rows.append(JournalRow(seq: row.seq, change: row.change, before: item))
            default: return rows
            }
        }
        return rows
    }
}
