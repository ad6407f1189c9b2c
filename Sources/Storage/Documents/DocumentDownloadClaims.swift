/// A document journal that several servers share, whose album downloads are claimed
/// (docs/architecture-instances.md, "A downloader that dies"): the server that commits a selection takes its
/// download claim in the same transaction (`JournalWrite.claim`) and holds it until it has committed the
/// outcome; when that server is gone (its connection ended), another takes the claim and downloads, and the
/// outcome, committed under a key of its own, is committed once. A journal of one process needs none of it.
package protocol DocumentDownloadClaims: DocumentJournal {
    /// Takes the claim of the selection committed as entry `seq` unless its holder is alive or the outcome keyed
    /// `key` is committed; `done(true)` when this server holds it now (on the journal's loop).
    func claim(_ seq: Int64, outcome key: String, _ done: @escaping @Sendable (Bool) -> Void)

    /// Gives the claim of `seq` back (its outcome is committed, or moot).
    func unclaim(_ seq: Int64)

    /// Runs `work` on the journal's loop after `seconds`.
    func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void)
}
