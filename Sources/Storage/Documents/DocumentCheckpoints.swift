/// A saved state of a data file's resources (`POST /db/checkpoints`): its number, its name, the journal id
/// of the newest entry it shows and when it was taken.
package struct DocumentCheckpoint: Sendable, Equatable {
    /// Its number, unique in its journal (never given again, also after a `DELETE`).
    package var id: Int64
    /// The client's name for it, or `""`.
    package var name: String
    /// The journal id of the newest entry the saved state shows.
    package var seq: Int64
    /// When it was taken, ISO 8601 in UTC (`2026-12-06T07:30:00.000Z`).
    package var createdAt: String

    /// The checkpoint `id`.
    package init(id: Int64, name: String, seq: Int64, createdAt: String) {
        self.id = id
        self.name = name
        self.seq = seq
        self.createdAt = createdAt
    }
}

/// Where a data file's checkpoints are kept: beside its entries, in the journal's own database, each as the
/// whole state it saved (the JSON object `GET /db` answers for the resources), so a checkpoint survives a
/// restart and the journal's retention, and a restore reads one row whichever server answers it.
///
/// NB: a saved state, not pinned entries: retention deletes entries, the SQLite journal holds no copy of the
/// items to go back to, and a restore from entries would have to undo every change since, while a saved
/// state costs its size once and restores in one read.
///
/// ```swift
/// let saved = try journal.saveCheckpoint(name: "logged in", seq: 41, createdAt: now, content: db)
/// let (checkpoint, content) = try journal.checkpoint(saved.id)!
/// ```
package protocol DocumentCheckpoints: Sendable {
    /// Saves `content` (the resources' state after entry `seq`) as a new checkpoint and answers it.
    func saveCheckpoint(name: String, seq: Int64, createdAt: String, content: String) throws(JournalError)
        -> DocumentCheckpoint
    /// Every checkpoint, oldest first (without their states).
    func checkpoints() throws(JournalError) -> [DocumentCheckpoint]
    /// The checkpoint `id` with its saved state; nil when there is none.
    func checkpoint(_ id: Int64) throws(JournalError) -> (checkpoint: DocumentCheckpoint, content: String)?
    /// Drops the checkpoint `id`; false when there was none.
    func deleteCheckpoint(_ id: Int64) throws(JournalError) -> Bool
    /// The state a reset goes back to when several servers share the journal, as saved there; when none is,
    /// `content` is saved (the caller's start) and answered — of servers calling at once, one's is kept. Nil
    /// when the journal keeps none (one server, which keeps its own start in memory).
    func startState(saving content: () -> String) throws(JournalError) -> String?
}
