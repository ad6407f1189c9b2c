import Domain

/// A shared database's resources taken back before their newest entries, so that a restarted server can send
/// those entries through its view models again, oldest first, and make their events with the ids and data
/// the first run gave them: a `Last-Event-ID` from before the restart then resumes as if the server had not
/// stopped (what a data file's SQLite journal does after `kill -9`, from the file).
///
/// Each entry keeps its item before it (`PostgresDocumentJournal.logAndRemove`): `[place,item]`, or `null`
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
        var state: [String: [String: (place: Int64, body: String)]] = [:]
        for resource in resources where resource.places.count == resource.items.count {
            var items: [String: (place: Int64, body: String)] = [:]
            for (item, place) in zip(resource.items, resource.places) { items[item.key] = (place, item.body) }
            state[resource.name] = items
        }
        var undone: [JournalEntry] = []
        for row in recent.prefix(max(0, count)) {
            let name = row.change.collection
            guard let before = row.before, var items = state[name],
                items[row.change.key]?.body == row.change.document
            else { break }
            if before == "null" {
                items[row.change.key] = nil
            } else if let (place, body) = Self.placed(before) {
                items[row.change.key] = (place, body)
            } else {
                break
            }
            state[name] = items
            undone.append(JournalEntry(seq: row.seq, change: row.change))
        }
        self.resources = resources.map { resource in
            guard !undone.isEmpty, let items = state[resource.name] else { return resource }
            let ordered = items.sorted { ($0.value.place, $0.key) < ($1.value.place, $1.key) }
            return DocumentRows(
                name: resource.name, kind: resource.kind, items: ordered.map { ($0.key, $0.value.body) },
                places: ordered.map(\.value.place))
        }
        entries = undone.reversed()
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
