import Dispatch

/// The checkpoints in the shared database (`livestate_checkpoints`), so every server
/// lists and restores the same ones. The row marked `is_start` is the state a reset goes back to, saved once
/// (by the server whose file filled the database), so a reset through any server gives the same items.
///
/// NB: its calls share the journal's one connection: the caller runs them between batches, never inside
/// one's transaction.
///
/// NB: a state may be as large as the file: its statements run without the connection's 3 s bound (in a
/// transaction of their own, as a start's seeding does).
extension PostgresDocumentJournal: DocumentCheckpoints {
    /// The checkpoints' table, and the index that keeps one saved start (a step of `migrations`; older servers
    /// made them on first use).
    static let checkpointSchema = """
        CREATE TABLE IF NOT EXISTS livestate_checkpoints (
            id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, seq BIGINT NOT NULL, created_at TEXT NOT NULL,
            content TEXT NOT NULL, is_start BOOLEAN NOT NULL DEFAULT false);
        CREATE UNIQUE INDEX IF NOT EXISTS livestate_checkpoints_start ON livestate_checkpoints (is_start)
            WHERE is_start;
        """

    package func saveCheckpoint(
        name: String, seq: Int64, createdAt: String, content: String
    ) throws(JournalError) -> DocumentCheckpoint {
        let rows = try checkpointTransaction(
            "INSERT INTO livestate_checkpoints (name, seq, created_at, content) VALUES ($1, $2, $3, $4) RETURNING id",
            [name, String(seq), createdAt, content])
        guard let id = rows.integer() else { throw .unavailable("the checkpoint was given no id") }
        return DocumentCheckpoint(id: id, name: name, seq: seq, createdAt: createdAt)
    }

    package func checkpoints() throws(JournalError) -> [DocumentCheckpoint] {
        let rows = try checkpointTransaction(
            "SELECT id, name, seq, created_at FROM livestate_checkpoints WHERE NOT is_start ORDER BY id", [])
        return rows.rows.compactMap(Self.checkpoint)
    }

    package func checkpoint(
        _ id: Int64
    ) throws(JournalError) -> (checkpoint: DocumentCheckpoint, content: String)? {
        let rows = try checkpointTransaction(
            "SELECT id, name, seq, created_at, content FROM livestate_checkpoints WHERE id = $1 AND NOT is_start",
            [String(id)])
        guard let row = rows.rows.first, let checkpoint = Self.checkpoint(row), let content = row[4] else { return nil }
        return (checkpoint, content)
    }

    package func deleteCheckpoint(_ id: Int64) throws(JournalError) -> Bool {
        let rows = try checkpointTransaction(
            "DELETE FROM livestate_checkpoints WHERE id = $1 AND NOT is_start RETURNING id", [String(id)])
        return !rows.rows.isEmpty
    }

    package func startState(saving content: () -> String) throws(JournalError) -> String? {
        let found = try checkpointTransaction(
            "SELECT content FROM livestate_checkpoints WHERE is_start", [])
        if let saved = found.rows.first?.first ?? nil { return saved }
        let state = content()
        // NB: of servers starting together, the first to commit keeps its state; the others read it.
        try checkpointTransaction(
            """
            INSERT INTO livestate_checkpoints (name, seq, created_at, content, is_start)
            VALUES ('start', 0, '', $1, true) ON CONFLICT DO NOTHING
            """, [state])
        let saved = try checkpointTransaction("SELECT content FROM livestate_checkpoints WHERE is_start", [])
        return saved.rows.first?.first ?? state
    }

    private static func checkpoint(_ row: [String?]) -> DocumentCheckpoint? {
        guard row.count >= 4, let id = row[0].flatMap({ Int64($0) }), let name = row[1],
            let seq = row[2].flatMap({ Int64($0) }), let createdAt = row[3]
        else { return nil }
        return DocumentCheckpoint(id: id, name: name, seq: seq, createdAt: createdAt)
    }

    /// Runs `sql` in a transaction of its own, with no statement bound; a failure is
    /// `.unavailable` (nothing was changed: the transaction is rolled back).
    @discardableResult
    private func checkpointTransaction(
        _ sql: String, _ parameters: [String?]
    ) throws(JournalError) -> PostgresRows {
        let deadline = DispatchTime.now() + 30
        do throws(PostgresError) {
            let session = try begin(until: deadline)
            do throws(PostgresError) {
                try step(session, "SET LOCAL statement_timeout = 0", until: deadline)
                try step(session, "SET LOCAL idle_in_transaction_session_timeout = 0", until: deadline)
                let rows = try step(session, sql, parameters, until: deadline)
                try step(session, "COMMIT", until: deadline)
                return rows
            } catch {
                abandon(session)
                throw error
            }
        } catch {
            throw .unavailable("PostgreSQL did not answer: \(error.message)")
        }
    }
}
