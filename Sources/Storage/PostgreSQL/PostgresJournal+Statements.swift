import Domain
import Foundation

extension PostgresJournal {
    /// The entry a write key committed: a write sent again with its key (by its client, or by this instance
    /// after an unknown outcome) is answered from it.
    static let keyedStatement = "SELECT id, topic, change FROM livestate_events WHERE write_key = $1"

    /// The entries after `$1`, and the id below which retention deleted entries (an instance whose last
    /// applied id is below it missed some: it reloads the state instead).
    static let catchUpStatement = """
        SELECT e.id, e.topic, e.change, c.pruned_below
        FROM livestate_counter c LEFT JOIN LATERAL (
            SELECT id, topic, change FROM livestate_events WHERE id > $1::bigint ORDER BY id LIMIT 1000
        ) e ON true ORDER BY e.id
        """

    /// The todos and the journal id they reflect, in one snapshot (the start, and a reload after a gap).
    static let snapshotStatement = """
        SELECT c.last_id, t.id, t.title, t.completed
        FROM livestate_counter c LEFT JOIN todos t ON true ORDER BY t.id
        """

    static func id(of write: Write) -> Int {
        switch write {
        case .insert: 0
        case .update(let id, _, _), .delete(let id): id
        }
    }

    /// The snapshot in `rows` (`snapshotStatement`); nil when the counter row is missing.
    static func snapshot(_ rows: PostgresRows) -> Snapshot? {
        guard let lastSeq = rows.integer(0, 0) else { return nil }
        let todos = rows.rows.indices.compactMap { index -> Todo? in
            guard let id = rows.integer(index, 1) else { return nil }
            return Todo(id: Int(id), title: rows.rows[index][2] ?? "", completed: rows.rows[index][3] == "t")
        }
        return Snapshot(todos: todos, lastSeq: lastSeq)
    }

    private struct StoredChange: Decodable {
        var op: String
        var todo: Todo?
        var id: Int?
    }

    /// The change of a journal row: an item of the todos' collection for topic `todos` (stored as
    /// `{"op":"upsert","todo":…}` or `{"op":"delete","id":…}`), the input's JSON otherwise.
    static func change(topic: String, json: String) -> Change? {
        guard topic == Change.todos else { return .input(topic: topic, json: json) }
        guard let stored = try? JSONDecoder().decode(StoredChange.self, from: Data(json.utf8)) else { return nil }
        switch (stored.op, stored.todo, stored.id) {
        case ("upsert", let todo?, _): return Change(TodoChange.upsert(todo))
        case ("delete", _, let id?): return Change(TodoChange.delete(id: id))
        default: return nil
        }
    }

    /// The schema version this binary writes and knows.
    static let schemaVersion = 5
    /// The SQLSTATE the schema script raises on a database of a newer version.
    static let newerSchemaState = "LSV01"

    /// Version 5 of the schema (version 1 plus `pruned_below` and `write_key`; 3: `livestate_write_batch`; 4:
    /// `livestate_write_batch_keyed`, which takes every input and checks each write's key first; 5:
    /// `livestate_write_batch_v5`, whose todo entries carry the row before the change — each older function
    /// stays for instances of the older binary during a rolling upgrade). A database of version 3 or 4 keeps
    /// its tables, todos and entries: the migration only adds the function and sets the version; its entries
    /// without `before` are where a restarted instance's replay stops (`recent`). The counter starts above
    /// every clock-based event id given before (microseconds since 1970, divided by the 65,536 local ids each
    /// entry leaves room for). A database of a version above `schemaVersion` was written by a newer LiveState:
    /// the script stops (`LSV01`) before it changes anything, and the server does not start.
    static let schema = """
        SELECT pg_advisory_xact_lock(7428001);
        CREATE TABLE IF NOT EXISTS livestate_schema (version integer NOT NULL);
        DO $$ BEGIN
            IF (SELECT max(version) FROM livestate_schema) > \(schemaVersion) THEN
                RAISE EXCEPTION 'schema version newer than \(schemaVersion)' USING ERRCODE = '\(newerSchemaState)';
            END IF;
        END $$;
        CREATE TABLE IF NOT EXISTS todos (
            id BIGSERIAL PRIMARY KEY,
            title TEXT NOT NULL,
            completed BOOLEAN NOT NULL DEFAULT false
        );
        CREATE TABLE IF NOT EXISTS livestate_counter (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            last_id BIGINT NOT NULL
        );
        ALTER TABLE livestate_counter ADD COLUMN IF NOT EXISTS pruned_below BIGINT NOT NULL DEFAULT 0;
        CREATE TABLE IF NOT EXISTS livestate_events (
            id BIGINT PRIMARY KEY,
            topic TEXT NOT NULL,
            change TEXT NOT NULL,
            committed_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        ALTER TABLE livestate_events ADD COLUMN IF NOT EXISTS write_key TEXT UNIQUE;
        WITH fresh AS (
            INSERT INTO livestate_counter (last_id)
            SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint / 65536 + 1
            WHERE NOT EXISTS (SELECT 1 FROM livestate_counter)
            RETURNING 1
        ), seeded AS (
            INSERT INTO todos (title, completed) SELECT 'Buy Milk', false FROM fresh RETURNING 1
        )
        INSERT INTO livestate_schema (version) SELECT 1 FROM seeded;
        UPDATE livestate_schema SET version = \(schemaVersion) WHERE version < \(schemaVersion);
        \(batchFunction)
        """

    /// Retention: one instance at a time (an advisory lock) deletes all but the newest `keep` entries and
    /// records where the deleted ids end.
    static func pruneStatement(keep: Int64) -> String {
        """
        WITH lock AS (SELECT pg_try_advisory_xact_lock(7428002) AS held),
        horizon AS (SELECT last_id - \(keep) AS below FROM livestate_counter, lock WHERE lock.held),
        gone AS (DELETE FROM livestate_events USING horizon WHERE id < horizon.below RETURNING id)
        UPDATE livestate_counter SET pruned_below = horizon.below FROM horizon
        WHERE horizon.below > pruned_below AND EXISTS (SELECT 1 FROM gone)
        """
    }
}

/// Calls a completion at most once, whichever of the answer or the deadline comes first (on one loop).
final class Once<Value>: @unchecked Sendable {
    // NB: @unchecked because it is used on the journal's loop only.
    private var completion: (@Sendable (Value) -> Void)?

    init(_ completion: @escaping @Sendable (Value) -> Void) {
        self.completion = completion
    }

    /// Whether the completion was called.
    var isDone: Bool { completion == nil }

    /// Calls the completion if it was not called yet; whether it was called now.
    @discardableResult
    func call(_ value: Value) -> Bool {
        guard let completion else { return false }
        self.completion = nil
        completion(value)
        return true
    }
}

/// The snapshot handed from the loop to the thread waiting in `start`.
final class SnapshotBox: @unchecked Sendable {
    // NB: @unchecked because the semaphore orders the write on the loop before the read.
    var value: Result<PostgresJournal.Snapshot, PostgresError>?
}
