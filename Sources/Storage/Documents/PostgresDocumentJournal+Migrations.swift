/// The steps of a document database (`PostgresMigrations`, under `writeLock`, so servers that start together do
/// not race), one list for each data set (`DataSet`). One database holds one data set: the check that runs
/// first at every start refuses the other one (`LSV02`: not retried, waiting would not change it) — a data
/// file's store a seeds' database, in their own tables or in the document tables (`livestate_doc_seed.data_set`
/// says `seeds`), the seeds' store a database a data file filled.
///
/// - `document tables`, `checkpoints`: the tables of both (on a database from before the steps were recorded,
///   `document tables` is recognised by its entries in `livestate_entries`).
/// - The seeds' data set first has `schema 6`: their former schema script (`seedsSchemaSix`), which
///   brings a seeds' database of any version 1-5 to 6, and does nothing on a new database. It is recorded
///   without being run on a database from before the steps whose `livestate_schema` says 6; one above 6 was
///   written by a newer LiveState and is refused (`LSV01`).
/// - Then `seeds as documents`: the data set's column, and a seeds' database's todos, inputs and entries moved
///   into the document tables (`seedsAsDocuments`).
/// - Last, for both, `batch function`, `batch scans by id` and `batch retry`: the functions that read and write
///   a batch (`batchFunction`; the second step gave their reads of the newest entries an upper bound, the third
///   added the attempt that answers what it read when it wrote nothing).
extension PostgresDocumentJournal {
    /// What a document database holds: a data file's resources or the seeds' (todos and their other inputs).
    package enum DataSet: Sendable {
        /// The resources of a data file (`FILE.json`), which filled the database once.
        case file
        /// The seeds' todos (collection `todos`) and their other inputs (one singular resource per topic).
        case seeds
    }

    /// The steps for a store of `dataSet`; see the extension's comment.
    static func migrations(for dataSet: DataSet) -> PostgresMigrations {
        let documents: [PostgresMigrations.Step] = [
            ("document tables", documentTables), ("checkpoints", checkpointSchema),
        ]
        // NB: the same functions again: each later step replaces those a database migrated by the one before holds.
        let batch: [PostgresMigrations.Step] = [
            ("batch function", batchFunction), ("batch scans by id", batchFunction), ("batch retry", batchFunction),
        ]
        let olderDocuments = """
            IF to_regclass('livestate_doc_seed') IS NOT NULL AND to_regclass('livestate_entries') IS NOT NULL
                AND to_regclass('livestate_doc_entries') IS NULL THEN
                INSERT INTO livestate_migrations (name) VALUES ('document tables');
            END IF;
            """
        switch dataSet {
        case .file:
            return PostgresMigrations(
                lock: writeLock, check: check(dataSet), older: olderDocuments, steps: documents + batch)
        case .seeds:
            return PostgresMigrations(
                lock: writeLock, check: check(dataSet),
                older: """
                    IF to_regclass('livestate_schema') IS NOT NULL THEN
                        IF (SELECT max(version) FROM livestate_schema) > 6 THEN
                            RAISE EXCEPTION 'schema version newer than 6' USING ERRCODE = '\(newerSchemaState)';
                        END IF;
                        INSERT INTO livestate_migrations (name) SELECT 'schema 6' FROM livestate_schema
                        HAVING max(version) = 6;
                    END IF;
                    """,
                steps: [("schema 6", seedsSchemaSix)] + documents + [("seeds as documents", seedsAsDocuments)] + batch)
        }
    }

    /// The SQLSTATE of a seeds' database from before the steps whose `livestate_schema` is above 6.
    static let newerSchemaState = "LSV01"

    /// The statement that refuses a database of the other data set (`LSV02`).
    private static func check(_ dataSet: DataSet) -> String {
        // NB: `data_set` is read only where the column exists: PL/pgSQL plans a statement when it first runs it.
        let seeds = """
            EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('livestate_doc_seed')
                AND attname = 'data_set' AND NOT attisdropped)
            """
        switch dataSet {
        case .file:
            return """
                DO $$ BEGIN
                    IF to_regclass('livestate_counter') IS NOT NULL THEN
                        RAISE EXCEPTION 'the database holds the seeds'' todos and entries'
                            USING ERRCODE = '\(otherDataSetState)';
                    END IF;
                    IF \(seeds) THEN
                        IF EXISTS (SELECT 1 FROM livestate_doc_seed WHERE data_set = 'seeds') THEN
                            RAISE EXCEPTION 'the database holds the seeds'' todos and entries'
                                USING ERRCODE = '\(otherDataSetState)';
                        END IF;
                    END IF;
                END $$;
                """
        case .seeds:
            return """
                DO $$ BEGIN
                    IF to_regclass('livestate_doc_seed') IS NOT NULL THEN
                        IF NOT \(seeds) THEN
                            IF EXISTS (SELECT 1 FROM livestate_doc_seed) THEN
                                RAISE EXCEPTION 'the database holds a data file''s resources'
                                    USING ERRCODE = '\(otherDataSetState)';
                            END IF;
                        ELSIF EXISTS (SELECT 1 FROM livestate_doc_seed WHERE data_set <> 'seeds') THEN
                            RAISE EXCEPTION 'the database holds a data file''s resources'
                                USING ERRCODE = '\(otherDataSetState)';
                        END IF;
                    END IF;
                END $$;
                """
        }
    }

    /// The todo of the JSON value `json` (a seeds' row written by `json_build_object`) as the server encodes a
    /// todo (`JSONCoding`: sorted keys, compact; `to_json` escapes a title as Swift's encoder does).
    private static func todo(_ json: String) -> String {
        """
        '{"completed":' || (\(json) ->> 'completed') || ',"id":' || (\(json) ->> 'id') || ',"title":'
            || to_json(\(json) ->> 'title')::text || '}'
        """
    }

    /// `seeds as documents`: the column that says which data set a database holds, and the table of each
    /// collection's largest integer id (`livestate_doc_item_ids`: a deleted one's included, so the seeds' todos
    /// never give a deleted id again, as their sequence did); then, on a seeds' database of schema 6, its state
    /// moved into the document tables, so the seeds' store reads and writes it as a data file's store does:
    ///
    /// - resource `todos` (a collection; key: the id's text, place: the id, so the order stays by id) and one
    ///   singular resource per input topic that has an entry, whose item is its newest entry's JSON;
    /// - the todos' largest id is the one their sequence gave last;
    /// - every entry keeps its id; the next one continues after the counter (a client's `Last-Event-ID` from
    ///   before still resumes), and retention's gap goes to `livestate_doc_pruned`;
    /// - a todo entry's JSON and the todo before it are spelled as the server encodes a todo, the item before it
    ///   as `[place,item]` (`null`: the entry created it); an input's item before it is the topic's previous
    ///   entry. Where it is not known (an entry at or below `replay_floor`, written before todo entries kept
    ///   the todo before them; an input whose earlier entries retention deleted), it stays NULL, and a restart's
    ///   rewind stops there (`DocumentRewind`);
    /// - every `Idempotency-Key` stays with its entry, its request the topic (`todos`), as the seeds' store
    ///   names a request on either engine;
    /// - the seeds' own tables, view and functions go, and `livestate_schema` says 7, so a LiveState that only
    ///   knows version 6 or older refuses the database instead of starting its own tables in it.
    ///
    /// On a new database, the entries' ids start above every clock-based event id given until now (microseconds
    /// since 1970 over the 65,536 event ids of an entry), as the seeds' counter did.
    ///
    /// Every server of the seeds must be stopped before a server of this version starts on their database.
    static let seedsAsDocuments = """
        ALTER TABLE livestate_doc_seed ADD COLUMN data_set TEXT NOT NULL DEFAULT 'file';
        CREATE TABLE livestate_doc_item_ids (resource TEXT PRIMARY KEY, last BIGINT NOT NULL);
        DO $seeds$
        DECLARE given bigint;
        BEGIN
            IF to_regclass('livestate_counter') IS NULL THEN
                -- A new database: its ids start from the clock, as the seeds' counter did, so an event id a
                -- browser kept from an earlier deployment is below every new one, not held as unknown.
                PERFORM setval(pg_get_serial_sequence('livestate_entries', 'seq'),
                    (extract(epoch FROM clock_timestamp()) * 1000000)::bigint / 65536 + 1);
                RETURN;
            END IF;
            UPDATE livestate_entries e SET
                body = CASE WHEN e.body IS NOT NULL THEN \(todo("e.body::json")) END,
                before = CASE WHEN e.seq <= c.replay_floor THEN NULL
                    WHEN e.before IS NOT NULL THEN '[' || e.key || ',' || \(todo("e.before::json")) || ']'
                    WHEN e.body IS NOT NULL THEN 'null' END
            FROM livestate_counter c WHERE e.resource = 'todos' AND e.key <> '';
            UPDATE livestate_entries e SET
                before = CASE WHEN e.seq <= c.replay_floor THEN NULL
                    WHEN p.previous IS NOT NULL THEN '[0,' || p.previous || ']'
                    WHEN c.pruned_below = 0 THEN 'null' END
            FROM livestate_counter c, (
                SELECT seq, lag(body) OVER (PARTITION BY resource ORDER BY seq) AS previous
                FROM livestate_entries WHERE resource <> 'todos'
            ) p
            WHERE e.seq = p.seq;
            INSERT INTO livestate_doc_resources (name, kind, position)
            SELECT 'todos', 'collection', 0
            UNION ALL
            SELECT resource, 'singular', row_number() OVER (ORDER BY min(seq)) FROM livestate_entries
            WHERE resource NOT IN ('todos', '') GROUP BY resource;
            INSERT INTO livestate_doc_items (resource, key, place, body)
            SELECT 'todos', id::text, id,
                \(todo("json_build_object('id', id, 'title', title, 'completed', completed)"))
            FROM todos;
            INSERT INTO livestate_doc_items (resource, key, place, body)
            SELECT DISTINCT ON (resource) resource, '', 0, body FROM livestate_entries
            WHERE resource NOT IN ('todos', '') AND body IS NOT NULL ORDER BY resource, seq DESC;
            EXECUTE 'SELECT last_value FROM ' || pg_get_serial_sequence('todos', 'id') INTO given;
            INSERT INTO livestate_doc_item_ids (resource, last)
            SELECT 'todos', greatest(given, (SELECT coalesce(max(id), 0) FROM todos));
            INSERT INTO livestate_doc_pruned (below) SELECT pruned_below FROM livestate_counter WHERE pruned_below > 0;
            PERFORM setval(pg_get_serial_sequence('livestate_entries', 'seq'), greatest(
                (SELECT max(last_id) FROM livestate_counter), (SELECT max(seq) FROM livestate_entries), 1));
            INSERT INTO livestate_doc_seed (source, data_set) VALUES ('the seeds'' tables of schema 6', 'seeds');
            DROP VIEW IF EXISTS livestate_events;
            DROP FUNCTION IF EXISTS livestate_write_batch_v5(json), livestate_write_batch_v6(json);
            DROP TABLE todos, livestate_counter;
            UPDATE livestate_schema SET version = 7;
        END $seeds$;
        """
}
