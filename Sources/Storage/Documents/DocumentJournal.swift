package import Dispatch
import Foundation

/// The journal a data file's `DocumentStore` commits through, whichever engine holds it: an SQLite file
/// (one server) or a PostgreSQL database (several servers, `PostgresDocumentJournal`).
///
/// ```swift
/// let seqs = try journal.commitBatch(after: applied, keys: ["k1"], until: .now() + 4.5) { others, keyed in
///     apply(others)
///     return plan(answering: keyed)            // the writes, planned on the state with those applied
/// }
/// ```
package protocol DocumentJournal: Sendable {
    /// Whether other servers commit to it too, so that it may hold entries this server has not applied yet.
    var isShared: Bool { get }

    /// Whether it keeps the item before each change as the caller gives it (`JournalWrite.itemsBefore`): a
    /// journal that holds no items (a data file's SQLite journal, beside the file that holds them). One that
    /// holds them finds the item itself.
    var keepsGivenItemsBefore: Bool { get }

    /// Commits one batch in one transaction. `plan` first gets the entries other servers committed after
    /// `seq` (oldest first; always none with SQLite), which the caller applies before it plans, and the
    /// writes committed under any of `keys` (their first entries, by key), read under the same lock as the
    /// commit, so a write sent again is answered from its entry and never committed twice; it answers the
    /// writes. Answers each change's journal id, in order. Nothing is committed when `plan` answers no
    /// change, nor when it throws `.unavailable`; `.outcomeUnknown` (with no key: the caller knows each
    /// write's) means the commit was sent and its outcome could not be learnt before `deadline`.
    ///
    /// A journal may call `plan` more than once: first with no entries and no keyed writes, to commit without
    /// reading first, then, each time the database had moved on, with the entries and keyed writes it read
    /// since the call before (nothing of the earlier plans is committed then; the keyed writes found before
    /// are given again). Each call answers every write anew.
    func commitBatch(
        after seq: Int64, keys: [String], until deadline: DispatchTime,
        _ plan: (_ others: [JournalEntry], _ keyed: [String: KeyedEntry]) -> [JournalWrite]
    ) throws(JournalError) -> [Int64]

    /// The entries committed after `seq`, oldest first, up to `limit` of them (what a server that follows
    /// other servers' commits applies); `.behind` when retention deleted some of them.
    func committed(after seq: Int64, limit: Int) throws(JournalError) -> [JournalEntry]

    /// Whether `committed(after: seq)` would find nothing, as far as the journal can tell without asking the
    /// database (other servers announce their commits): a catch-up then skips its read. False when it
    /// cannot tell.
    func announcesNothing(after seq: Int64) -> Bool

    /// Every resource's items as they are after the newest entry, and that entry's id: what a server that
    /// fell `.behind` takes instead of the entries it missed, and what a store with no data file shows at start.
    /// A data file's SQLite journal (one server, which applies every entry it commits; the file holds the
    /// items) has no such read and throws `.unavailable`.
    func current() throws(JournalError) -> (seq: Int64, resources: [DocumentRows])
}

extension DocumentJournal {
    package var keepsGivenItemsBefore: Bool { false }

    package func announcesNothing(after seq: Int64) -> Bool { false }
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

/// The `Idempotency-Key` a write was sent with, and the request it came with (`POST /posts`): kept with the
/// write's first entry, so that the same request sent again with the key is answered from that entry (also
/// by another server, also after a restart) for as long as retention keeps the entry.
package struct WriteKey: Sendable, Hashable {
    /// The client's key, or one the server made for a write on a shared database.
    package var key: String
    /// The method and path of the request that committed it.
    package var request: String

    /// `key`, sent with `request`.
    package init(key: String, request: String) {
        self.key = key
        self.request = request
    }

    /// A key of the server's own for a write that came without one: unique across servers and restarts (122
    /// random bits), so that a write whose outcome is unknown can be sent again and applied once.
    package static func serverMade() -> String {
        "livestate-" + UUID().uuidString.lowercased()
    }
}

/// One write's changes, committed together, and the key its first change keeps (nil: none).
package struct JournalWrite: Sendable {
    /// The changes, in order (an item, then the items a cascade deletes with it).
    package var changes: [JournalChange]
    /// The item before each change, as a journal that holds no items keeps it (`keepsGivenItemsBefore`, the
    /// form `ItemBefore` reads); nil where not known. Empty: none given.
    package var itemsBefore: [String?] = []
    /// The key the first change keeps.
    package var key: WriteKey?
    /// Take the download claim of the first change's entry in the commit's transaction (an album selection on a
    /// journal several servers share: `DocumentDownloadClaims`); a journal of one process has no claims.
    package var claim: Bool

    /// `changes`, under `key`, claimed when `claim`.
    package init(changes: [JournalChange], key: WriteKey? = nil, claim: Bool = false) {
        self.changes = changes
        self.key = key
        self.claim = claim
    }
}

/// The first entry of a write committed under a key, and the request that committed it.
package struct KeyedEntry: Sendable, Equatable {
    /// The entry.
    package var entry: JournalEntry
    /// The method and path of the request that committed it.
    package var request: String
}
