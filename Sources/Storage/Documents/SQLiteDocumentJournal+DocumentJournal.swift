package import Dispatch
import Domain

/// One server owns the file (`SQLiteFileGuard`), so no other server commits: a batch is planned on the state
/// as it is and committed at once (an SQLite commit does not hang, so the deadline is not needed). A change
/// the engine refused (`.failed`: a full disk, a damaged file) is `.unavailable` here: a data file's write
/// that was not stored is answered 503 `storage_unavailable` (docs/own-data.md), the todo store's
/// `storage_error`.
extension SQLiteDocumentJournal: DocumentJournal {
    package var isShared: Bool { false }

    /// A data file's journal: the file holds the items, so the store gives the item before each change.
    package var keepsGivenItemsBefore: Bool { holding == .dataFile }

    package func commitBatch(
        after seq: Int64, keys: [String], until deadline: DispatchTime,
        _ plan: (_ others: [JournalEntry], _ keyed: [String: KeyedEntry]) -> [JournalWrite]
    ) throws(JournalError) -> [Int64] {
        do {
            // NB: one batch at a time (`DocumentStore`), and no other server: nothing commits between the two.
            let writes = plan([], try keyed(keys))
            guard writes.contains(where: { !$0.changes.isEmpty }) else { return [] }
            return try commit(writes)
        } catch {
            throw .unavailable(error.description)
        }
    }

    package func committed(after seq: Int64, limit: Int) throws(JournalError) -> [JournalEntry] {
        do {
            return try entries(after: seq, limit: limit)
        } catch {
            throw .unavailable(error.description)
        }
    }

    /// A store with no data file: its items as the journal holds them (what a start shows). A data file's
    /// journal holds no items (the file does) and is never behind (this server applies every entry it commits,
    /// and retention keeps what the file does not show): `.unavailable`.
    package func current() throws(JournalError) -> (seq: Int64, resources: [DocumentRows]) {
        guard holding == .items else {
            throw .unavailable("an SQLite journal has one server, which never falls behind it")
        }
        do {
            return try heldItems()
        } catch {
            throw .unavailable(error.description)
        }
    }
}
