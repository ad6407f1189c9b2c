import Domain

/// A shared database's resources taken back before their newest entries, so that a restarted server can send
/// those entries through its view models again, oldest first, and make their events with the ids and data
/// the first run gave them: a `Last-Event-ID` from before the restart then resumes as if the server had not
/// stopped (what a data file's SQLite journal does after `kill -9`, from the file).
///
/// Each entry keeps its item before it (`PostgresDocumentJournal.batchFunction`): `[place,item]`, or `null`
/// when there was none. Walking from the current items back, newest entry first, an entry is undone by putting
/// that item back at its place (or removing the one it created). The walk stops at `count` entries, and
/// before an entry it cannot undo exactly: one an older server wrote without `before`, one of a resource
/// that is not served, one whose item is not what the items after it say. So the resources it answers are
/// exactly those after every entry older than `entries`.
///
/// ```swift
/// let rewind = DocumentRewind(start.resources, recent: start.recent, count: 1024)
/// // serve rewind.resources, then send rewind.entries (oldest first) into the view models
/// ```
package struct DocumentRewind: Sendable {
    /// The resources before `entries`, in the order given, each collection's items in place order.
    package var resources: [DocumentRows]
    /// The entries undone, oldest first.
    package var entries: [JournalEntry]

    /// `resources` (with their places) taken back before as many of `recent` (newest first) as can be undone
    /// exactly, at most `count`.
    package init(_ resources: [DocumentRows], recent: [JournalRow], count: Int) {
        let byName = Dictionary(resources.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // NB: a resource's items by key, made when an entry first touches it, and changed in place (taken out
        // and put back): a copy per entry would cost the resource's size each time.
        var state: [String: [String: (place: Int64, body: String)]] = [:]
        var undone: [JournalEntry] = []
        for row in recent.prefix(max(0, count)) {
            let (name, key) = (row.change.collection, row.change.key)
            guard let before = row.before, var items = state.removeValue(forKey: name) ?? Self.keyed(byName[name])
            else { break }
            defer { state[name] = items }
            guard items[key]?.body == row.change.document else { break }
            if before == "null" {
                items[key] = nil
            } else if let (place, body) = Self.placed(before) {
                items[key] = (place, body)
            } else {
                break
            }
            undone.append(JournalEntry(seq: row.seq, change: row.change))
        }
        let touched = Set(undone.map(\.change.collection))
        self.resources = resources.map { resource in
            guard touched.contains(resource.name), let items = state[resource.name] else { return resource }
            let ordered = items.sorted { ($0.value.place, $0.key) < ($1.value.place, $1.key) }
            return DocumentRows(
                name: resource.name, kind: resource.kind, items: ordered.map { ($0.key, $0.value.body) },
                places: ordered.map(\.value.place))
        }
        entries = undone.reversed()
    }

    /// `recent` (newest first) as the seeds' replay reads it (`SeedRewind`): each row's item before it as
    /// the item itself (nil: the entry created it), up to the first row whose item before is not known (an
    /// entry of an older server), which the replay could not undo.
    package static func itemsBefore(_ recent: [JournalRow]) -> [JournalRow] {
        var rows: [JournalRow] = []
        for row in recent {
            guard let before = row.before else { break }
            if before == "null" {
                rows.append(JournalRow(seq: row.seq, change: row.change, before: nil))
            } else if let (_, item) = placed(before) {
                rows.append(JournalRow(seq: row.seq, change: row.change, before: item))
            } else {
                break
            }
        }
        return rows
    }

    /// `resource`'s items by key, with their places and JSON; nil without a resource or its places.
    private static func keyed(_ resource: DocumentRows?) -> [String: (place: Int64, body: String)]? {
        guard let resource, resource.places.count == resource.items.count else { return nil }
        let pairs = zip(resource.items, resource.places).map { item, place in (item.key, (place, item.body)) }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// The place and item of a `before` text, `[place,item]`: the place is the digits up to the first comma,
    /// the item the text after it up to the final `]`, byte for byte.
    private static func placed(_ before: String) -> (Int64, String)? {
        guard before.hasPrefix("["), before.hasSuffix("]"), let comma = before.firstIndex(of: ",") else { return nil }
        guard let place = Int64(before[before.index(after: before.startIndex)..<comma]) else { return nil }
        let body = before[before.index(after: comma)..<before.index(before: before.endIndex)]
        return body.isEmpty ? nil : (place, String(body))
    }
}
