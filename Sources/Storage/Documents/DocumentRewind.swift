import Domain

/// Resources taken back before their newest journal entries, so that a restarted server can send those entries
/// through its view models again, oldest first, and make their events with the ids and data the first run gave
/// them: a `Last-Event-ID` from before the restart then resumes as if the server had not stopped (a clean stop or
/// `kill -9`). The one restart rewind of every store: a data file on SQLite (`FileOrderItems`, the file's order)
/// or PostgreSQL and the seeds (`PlacedItems`, the database's places).
///
/// Each entry keeps the item before it (`ItemBefore`). Walking from the current items back, newest entry first,
/// an entry is undone by putting that item back where it was (or removing the one it made). The walk stops at
/// `count` entries, and before an entry it cannot undo exactly: one without its item before (an older server's,
/// or one past a data file's floor), one of a resource that is not served, one whose item is not what the items
/// after it say. So the resources it answers are exactly those after every entry older than `entries`. Only the
/// resources an undone entry touches are taken apart, so a start on a large file pays for them alone.
///
/// ```swift
/// let rewind = DocumentRewind(start.resources, recent: start.recent, count: 1024)
/// // serve rewind.resources, then send rewind.entries (oldest first) into the view models
/// ```
package struct DocumentRewind<Items: RewindItems> {
    /// The resources before `entries`, in the order given.
    package var resources: [Items.Resource]
    /// The entries undone, oldest first.
    package var entries: [JournalEntry]

    /// `resources` taken back before as many of `recent` (newest first) as can be undone exactly, at most
    /// `count`; `items` makes a resource's holder when an entry first touches it (nil: it cannot be taken back).
    package init(
        _ resources: [Items.Resource], recent: [JournalRow], count: Int, items: (Items.Resource) -> Items?
    ) {
        let indices = Dictionary(
            resources.enumerated().map { (Items.name(of: $1), $0) }, uniquingKeysWith: { first, _ in first })
        // NB: a resource's holder, made when an entry first touches it, and changed in place (taken out and put
        // back): a copy per entry would cost the resource's size each time.
        var held: [Int: Items] = [:]
        var touched = Set<Int>()
        var undone: [JournalEntry] = []
        for row in recent.prefix(max(0, count)) {
            guard let before = row.before.flatMap(ItemBefore.init), let index = indices[row.change.collection],
                var holder = held.removeValue(forKey: index) ?? items(resources[index])
            else { break }
            defer { held[index] = holder }
            guard holder.undo(row.change.id, now: row.change.document, before: before) else { break }
            touched.insert(index)
            undone.append(JournalEntry(seq: row.seq, change: row.change))
        }
        var result = resources
        for index in touched {
            if let holder = held[index] { result[index] = holder.replacingItems(of: resources[index]) }
        }
        self.resources = result
        entries = undone.reversed()
    }
}

extension DocumentRewind where Items == PlacedItems {
    /// `resources` (read with their places) taken back before as many of `recent` (newest first) as can be
    /// undone exactly, at most `count`; each collection's items in place order.
    package init(_ resources: [DocumentRows], recent: [JournalRow], count: Int) {
        self.init(resources, recent: recent, count: count, items: PlacedItems.init)
    }
}
