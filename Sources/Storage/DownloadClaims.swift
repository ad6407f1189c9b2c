import Domain

/// A journal that several servers share, whose album downloads are claimed (docs/architecture-instances.md,
/// "A downloader that dies"): the server that journals a selection holds its download claim until it has
/// journaled the outcome; when that server is gone, another takes the claim and downloads, and the outcome
/// is journaled once. PostgreSQL conforms; a journal of one process (SQLite) needs none of it.
package protocol DownloadClaims: Journal {
    /// Commits a selection entry under `key` and takes its download claim in the same transaction; `claimed`
    /// gets the id, before the entry is applied here, when the claim was taken (not for a key committed
    /// before). `completion` as for the keyed `append`. An outcome is journaled with the keyed `append`
    /// under a key of its own: once across servers.
    func appendClaimed(
        topic: String, json: String, key: String?, claimed: @escaping @Sendable (Int64) -> Void,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void)

    /// Takes the claim of the selection `seq` unless its holder is alive or the outcome keyed `key` is
    /// journaled; `done(true)` when this server holds it now.
    func claim(_ seq: Int64, outcome key: String, _ done: @escaping @Sendable (Bool) -> Void)

    /// Gives the claim of `seq` back (its outcome is journaled, or moot).
    func unclaim(_ seq: Int64)

    /// Runs `work` after `seconds` where the journal applies its entries (its loop).
    func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void)
}
