import Synchronization

/// The checkpoints in the journal's SQLite file (`livestate_checkpoints`). A reset goes
/// back to the state the server started with, which it holds in memory: the file is the state and one
/// server owns it, so no copy is written at each start.
extension SQLiteDocumentJournal: DocumentCheckpoints {
    package func saveCheckpoint(
        name: String, seq: Int64, createdAt: String, content: String
    ) throws(JournalError) -> DocumentCheckpoint {
        try checkpointCall { connection throws(JournalError) in
            let row = try connection.query(
                "INSERT INTO livestate_checkpoints(name, seq, created_at, content) VALUES (?, ?, ?, ?) RETURNING id",
                [.text(name), .integer(seq), .text(createdAt), .text(content)]
            ).first
            guard let id = row?.first?.integer else { throw JournalError.failed("the checkpoint was given no id") }
            return DocumentCheckpoint(id: id, name: name, seq: seq, createdAt: createdAt)
        }
    }

    package func checkpoints() throws(JournalError) -> [DocumentCheckpoint] {
        try checkpointCall { connection throws(JournalError) in
            try connection.query("SELECT id, name, seq, created_at FROM livestate_checkpoints ORDER BY id")
                .compactMap(Self.checkpoint)
        }
    }

    package func checkpoint(
        _ id: Int64
    ) throws(JournalError) -> (checkpoint: DocumentCheckpoint, content: String)? {
        try checkpointCall { connection throws(JournalError) in
            let row = try connection.query(
                "SELECT id, name, seq, created_at, content FROM livestate_checkpoints WHERE id = ?", [.integer(id)]
            ).first
            guard let row, let checkpoint = Self.checkpoint(row), let content = row[4].text else { return nil }
            return (checkpoint, content)
        }
    }

    package func deleteCheckpoint(_ id: Int64) throws(JournalError) -> Bool {
        try checkpointCall { connection throws(JournalError) in
            !(try connection.query("DELETE FROM livestate_checkpoints WHERE id = ? RETURNING id", [.integer(id)])
                .isEmpty)
        }
    }

    package func startState(saving content: () -> String) throws(JournalError) -> String? { nil }

    private static func checkpoint(_ row: [SQLiteValue]) -> DocumentCheckpoint? {
        guard row.count >= 4, let id = row[0].integer, let name = row[1].text, let seq = row[2].integer,
            let createdAt = row[3].text
        else { return nil }
        return DocumentCheckpoint(id: id, name: name, seq: seq, createdAt: createdAt)
    }

    /// Runs `body` on the connection with the table made; a failure is `.unavailable` (nothing was changed).
    private func checkpointCall<T: Sendable>(
        _ body: @Sendable (SQLiteConnection) throws(JournalError) -> T
    ) throws(JournalError) -> T {
        do {
            return try withConnection { connection throws(JournalError) -> T in
                return try body(connection)
            }
        } catch {
            throw .unavailable(error.description)
        }
    }
}
