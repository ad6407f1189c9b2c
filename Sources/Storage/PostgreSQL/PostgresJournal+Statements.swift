import Domain
import Foundation

extension PostgresJournal {
    /// The entry a write key committed: a write sent again with its key (by its client, or by this instance
    /// after an unknown outcome) is answered from it.
    static let keyedStatement = "SELECT seq, resource, key, body FROM livestate_entries WHERE write_key = $1"

    /// The entries after `$1`, and the id below which retention deleted entries (an instance whose last
    /// applied id is below it missed some: it reloads the state instead).
    static let catchUpStatement = """
        SELECT e.seq, e.resource, e.key, e.body, c.pruned_below
        FROM livestate_counter c LEFT JOIN LATERAL (
            SELECT seq, resource, key, body FROM livestate_entries WHERE seq > $1::bigint ORDER BY seq LIMIT 1000
        ) e ON true ORDER BY e.seq
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

    /// The schema version this binary writes and knows.
    static let schemaVersion = 6
    /// The SQLSTATE the schema script raises on a database of a newer version.
    static let newerSchemaState = "LSV01"

    /// The steps of the seeds' database (`PostgresMigrations`, under the advisory lock 7428001, so instances
    /// that start together do not race). A database the seeds did not make but a data file filled is refused
    /// first (`LSV02`: not retried, waiting would not change it). A database from before the steps were
    /// recorded has `schema 6` when its `livestate_schema` says version 6; one of a version above 6 was
    /// written by a newer LiveState: it is refused (`LSV01`) before anything in it changes.
    static let migrations = PostgresMigrations(
        lock: 7_428_001,
        check: """
            DO $$ BEGIN
                IF to_regclass('livestate_doc_resources') IS NOT NULL THEN
                    RAISE EXCEPTION 'the database holds a data file''s resources'
                        USING ERRCODE = '\(PostgresEntries.otherDataSetState)';
                END IF;
            END $$;
            """,
        older: """
            IF to_regclass('livestate_schema') IS NOT NULL THEN
                IF (SELECT max(version) FROM livestate_schema) > \(schemaVersion) THEN
                    RAISE EXCEPTION 'schema version newer than \(schemaVersion)' USING ERRCODE = '\(newerSchemaState)';
                END IF;
                INSERT INTO livestate_migrations (name)
                SELECT 'schema 6' FROM livestate_schema HAVING max(version) = \(schemaVersion);
            END IF;
            """,
        steps: [("schema 6", schemaSix)])

    /// The last version of the schema before its steps were recorded (`livestate_schema`, still written: a
    /// LiveState from before the steps reads it, to refuse a newer database), as one idempotent step that
    /// brings any earlier version to it. Earlier versions: 1, the tables; 2, `pruned_below` and `write_key`;
    /// 3, `livestate_write_batch`; 4, `livestate_write_batch_keyed`, which takes every input and checks each
    /// write's key first; 5, `livestate_write_batch_v5`, whose todo entries carry the row before the change.
    /// Version 6 keeps the entries in `livestate_entries` (`PostgresEntries`, the table a data file's journal
    /// uses too) instead of `livestate_events` (a topic and the change's JSON per row). A database of an
    /// earlier version keeps its todos, ids, keys and counter: its entries are moved (a todo's JSON becomes
    /// the `todos` collection's item id, the todo after the change and the todo before it), and its newest todo
    /// entry that cannot be reverted — one written before version 5, without `before` or `insert` — becomes
    /// `replay_floor`, where a restarted instance's replay stops (`recent`). For instances of the version-5
    /// binary during a rolling upgrade, `livestate_events` becomes a view of the entries in that binary's
    /// form and `livestate_write_batch_v5` calls version 6 (instances of older binaries must stop first). The
    /// counter starts above every clock-based event id given before (microseconds since 1970, divided by the
    /// 65,536 local ids each entry leaves room for).
    static let schemaSix = """
        CREATE TABLE IF NOT EXISTS livestate_schema (version integer NOT NULL);
        CREATE TABLE IF NOT EXISTS todos (
            id BIGSERIAL PRIMARY KEY,
            title TEXT NOT NULL,
            completed BOOLEAN NOT NULL DEFAULT false
        );
        CREATE TABLE IF NOT EXISTS livestate_counter (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            last_id BIGINT NOT NULL
        );
        DO $$ BEGIN
            -- NB: only when a column is missing: ALTER TABLE locks the counter, and every write queues behind it.
            IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'livestate_counter'::regclass
                           AND attname = 'replay_floor' AND NOT attisdropped) THEN
                ALTER TABLE livestate_counter ADD COLUMN IF NOT EXISTS pruned_below BIGINT NOT NULL DEFAULT 0;
                ALTER TABLE livestate_counter ADD COLUMN replay_floor BIGINT NOT NULL DEFAULT 0;
            END IF;
        END $$;
        \(PostgresEntries.table)
        DO $$ BEGIN
            IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('livestate_events')) = 'r' THEN
                INSERT INTO livestate_entries (seq, resource, key, body, before, write_key, write_request, committed_at)
                SELECT id, topic,
                    CASE WHEN topic = 'todos'
                        THEN coalesce(change::json #>> '{todo,id}', change::json ->> 'id', '') ELSE '' END,
                    CASE WHEN topic <> 'todos' THEN change ELSE (change::json -> 'todo')::text END,
                    CASE WHEN topic = 'todos' THEN (change::json -> 'before')::text END,
                    write_key, CASE WHEN write_key IS NOT NULL THEN topic END, committed_at
                FROM livestate_events;
                UPDATE livestate_counter SET replay_floor = coalesce((
                    SELECT max(id) FROM livestate_events
                    WHERE topic = 'todos' AND change::json -> 'before' IS NULL AND change::json -> 'insert' IS NULL), 0);
                DROP TABLE livestate_events;
            END IF;
        END $$;
        DO $$ BEGIN
            IF to_regclass('livestate_events') IS NULL THEN
                CREATE VIEW livestate_events AS
                    SELECT seq AS id, resource AS topic,
                        CASE WHEN resource <> 'todos' THEN body
                            WHEN body IS NULL THEN json_build_object(
                                'op', 'delete', 'id', key::bigint, 'before', before::json)::text
                            WHEN before IS NULL THEN
                                json_build_object('op', 'upsert', 'insert', true, 'todo', body::json)::text
                            ELSE json_build_object('op', 'upsert', 'todo', body::json, 'before', before::json)::text
                        END AS change,
                        committed_at, write_key
                    FROM livestate_entries;
            END IF;
        END $$;
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
        gone AS (DELETE FROM livestate_entries USING horizon WHERE seq < horizon.below RETURNING seq)
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
