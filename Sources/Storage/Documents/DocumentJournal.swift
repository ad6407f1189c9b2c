package import Dispatch

/// The journal a data file's `DocumentStore` commits through, whichever engine holds it: an SQLite file
/// (one server) or a PostgreSQL database (several servers, `PostgresDocumentJournal`).
///
/// ```swift
/// let seqs = try journal.commitBatch(after: applied, until: .now() + 4.5) { committedByOthers in
///     apply(committedByOthers)
///     return plan()                            // the writes, planned on the state with those applied
/// }
/// ```
package protocol DocumentJournal: Sendable {
    /// Whether other servers commit to it too, so that it may hold entries this server has not applied yet.
    var isShared: Bool { get }

    /// Commits one batch in one transaction. `plan` first gets the entries other servers committed after
    /// `seq` (oldest first; always none with SQLite), which the caller applies before it plans, and answers
    /// the writes; answers each write's journal id, in order. Nothing is committed when `plan` answers no
    /// write, nor when it throws `.unavailable`; `.outcomeUnknown` means the commit was sent and its outcome
    /// could not be learnt before `deadline`.
    func commitBatch(
        after seq: Int64, until deadline: DispatchTime, _ plan: ([JournalEntry]) -> [JournalChange]
    ) throws(DocumentJournalFailure) -> [Int64]

    /// The entries committed after `seq`, oldest first, up to `limit` of them (what a server that follows
    /// other servers' commits applies); `.behind` when retention deleted some of them.
    func committed(after seq: Int64, limit: Int) throws(DocumentJournalFailure) -> [JournalEntry]

    /// Every resource's items as they are after the newest entry, and that entry's id: what a server that
    /// fell `.behind` takes instead of the entries it missed. An SQLite journal (one server, which applies
    /// every entry it commits) has no such read and throws `.unavailable`.
    func current() throws(DocumentJournalFailure) -> (seq: Int64, resources: [DocumentRows])
}

/// Why a batch of a data file's writes was not committed, or may not have been.
package enum DocumentJournalFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing of the batch was committed, and nothing of it will be (503 `storage_unavailable`).
    case unavailable(String)
    /// The commit was sent and its outcome is unknown: it may be applied once the database answers again
    /// (504 `storage_outcome_unknown`, never a 503).
    case outcomeUnknown(String)
    /// Retention deleted entries this server has not applied (those below `prunedBelow`): it was away longer
    /// than the journal keeps them, and takes the items as they are (`current`) instead.
    case behind(prunedBelow: Int64)

    /// The engine's explanation.
    package var description: String {
        switch self {
        case .unavailable(let reason), .outcomeUnknown(let reason): reason
        case .behind(let below): "entries below \(below) were deleted by retention before this server applied them"
        }
    }
}

extension JournalChange {
    /// A data file's entry as both engines' tables hold it: `resource`, `key` (`""` for a singular resource,
    /// which has no id) and `body` (NULL: deleted).
    init(resource: String, key: String, body: String?) {
        self.init(collection: resource, id: key.isEmpty ? nil : key, document: body)
    }

    /// The `key` column's text: the id, or `""` for a singular resource.
    var key: String { id ?? "" }
}
