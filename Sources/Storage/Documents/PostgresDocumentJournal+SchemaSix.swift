/// The seeds' schema script of version 6, kept for the seeds' databases it migrates (`migrations(for: .seeds)`).
extension PostgresDocumentJournal {
    /// `schema 6`: the seeds' schema script, run only on a seeds' database (it has their counter).
    static let seedsSchemaSix = """
        DO $step$ BEGIN
            IF to_regclass('livestate_counter') IS NOT NULL THEN
                EXECUTE $schema6$ \(schemaSix) $schema6$;
            END IF;
        END $step$;
        """

    /// The seeds' last schema before their steps were recorded (`livestate_schema` 6), as one idempotent script
    /// that brings any earlier version to it, so that `seeds as documents` moves one shape only. Earlier
    /// versions: 1, the tables; 2, `pruned_below` and `write_key`; 3 to 5, the batch functions of the seeds'
    /// former engine (5: todo entries carry the row before the change). Version 6 keeps the entries in
    /// `livestate_entries` instead of `livestate_events` (a topic and the change's JSON per row): a database of
    /// an earlier version keeps its todos, ids, keys and counter, its entries are moved (a todo's JSON becomes
    /// the `todos` collection's item id, the todo after the change and the todo before it), and its newest todo
    /// entry that cannot be reverted (one written before version 5, without `before` or `insert`) becomes
    /// `replay_floor`, where a restart's rewind stops. The former engine's batch function is not made: the next
    /// step drops it.
    private static let schemaSix = """
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
        \(entriesTable)
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
        UPDATE livestate_schema SET version = 6 WHERE version < 6;
        """
}
