import Domain
import Foundation

extension PostgresJournal {
    /// The statement of a batch: `$1` is the JSON array of `BatchWrite`s.
    static let batchStatement = "SELECT * FROM livestate_write_batch_v6($1::json)"

    /// The batch, in the database (created at start with the schema). Per write, in order, in a block of its
    /// own: the counter first (the lock that orders commits: every transaction takes it before any todo
    /// row, so none can deadlock), then the write's key (a key already committed raises `unique_violation`,
    /// 23505: the write is answered from that entry, never applied twice), the todo row (an unknown id raises
    /// `no_data_found`, P0002), the journal entry with the key (unique). The key is checked after the counter
    /// lock because an earlier attempt of the same write that is still running holds that lock until it
    /// ends: the check waits for it and then sees its commit, if any (the unique index would wait for it
    /// too, but a delete's row would be gone first and answer 404). A failing block is rolled back alone,
    /// its counter increment with it, so the committed ids stay consecutive. One row per write: `n`, `seq`,
    /// the todo, `failure` (the SQLSTATE, or NULL), `claimed` (a selection's download claim taken). One wake-up for the batch, whose payload is its newest
    /// id. A statement timeout is not caught (`OTHERS` excludes it): the whole batch fails, nothing committed.
    ///
    /// A todo entry is the `todos` collection's item: its id, the todo after the change (NULL: deleted) and,
    /// for an update or delete, the row as it was before (`before`, read under the row's lock in the same
    /// block), so a restarted instance rebuilds the lists its earlier events carried (`recent`); an input's
    /// entry is its topic and its JSON. Version 6 writes them into `livestate_entries`; the version 5 function
    /// calls it, for instances of that binary during a rolling upgrade.
    static let batchFunction = """
        CREATE OR REPLACE FUNCTION livestate_write_batch_v6(writes json)
        RETURNS TABLE (n bigint, seq bigint, todo_id bigint, todo_title text, todo_completed boolean, failure text,
            claimed boolean)
        LANGUAGE plpgsql AS $batch$
        DECLARE
            w json;
            newest bigint;
            old_title text;
            old_completed boolean;
        BEGIN
            FOR w, n IN SELECT value, ordinality FROM json_array_elements(writes) WITH ORDINALITY ORDER BY ordinality
            LOOP
                seq := NULL; todo_id := NULL; todo_title := NULL; todo_completed := NULL; failure := NULL;
                claimed := NULL; old_title := NULL; old_completed := NULL;
                BEGIN
                    UPDATE livestate_counter SET last_id = last_id + 1 RETURNING last_id INTO seq;
                    IF EXISTS (SELECT 1 FROM livestate_entries WHERE write_key = w->>'key') THEN
                        RAISE unique_violation;
                    END IF;
                    CASE w->>'op'
                    WHEN 'insert' THEN
                        INSERT INTO todos (title, completed) VALUES (w->>'title', (w->>'completed')::boolean)
                        RETURNING id, title, completed INTO todo_id, todo_title, todo_completed;
                    WHEN 'update' THEN
                        SELECT title, completed INTO old_title, old_completed FROM todos
                        WHERE id = (w->>'id')::bigint FOR UPDATE;
                        IF NOT FOUND THEN RAISE no_data_found; END IF;
                        UPDATE todos SET title = COALESCE(w->>'title', todos.title),
                            completed = COALESCE((w->>'completed')::boolean, todos.completed)
                        WHERE id = (w->>'id')::bigint RETURNING id, title, completed
                        INTO todo_id, todo_title, todo_completed;
                        IF NOT FOUND THEN RAISE no_data_found; END IF;
                    WHEN 'delete' THEN
                        DELETE FROM todos WHERE id = (w->>'id')::bigint RETURNING id, title, completed
                        INTO todo_id, old_title, old_completed;
                        IF NOT FOUND THEN RAISE no_data_found; END IF;
                    WHEN 'input' THEN
                        NULL;
                    END CASE;
                    INSERT INTO livestate_entries (seq, resource, key, body, before, write_key, write_request)
                    VALUES (seq, w->>'topic',
                        CASE WHEN w->>'op' = 'input' THEN '' ELSE todo_id::text END,
                        CASE WHEN w->>'op' = 'input' THEN w->>'change'
                        WHEN w->>'op' = 'delete' THEN NULL
                        ELSE json_build_object('id', todo_id, 'title', todo_title, 'completed', todo_completed)::text
                        END,
                        CASE WHEN w->>'op' IN ('update', 'delete') THEN
                            json_build_object('id', todo_id, 'title', old_title, 'completed', old_completed)::text
                        END,
                        w->>'key', w->>'topic');
                    -- NB: a session lock, last in the block: nothing after it can roll the block back.
                    IF (w->>'claim')::boolean THEN claimed := pg_try_advisory_lock(seq); END IF;
                    newest := seq;
                EXCEPTION WHEN OTHERS THEN
                    seq := NULL; todo_id := NULL; todo_title := NULL; todo_completed := NULL;
                    failure := SQLSTATE;
                END;
                RETURN NEXT;
            END LOOP;
            IF newest IS NOT NULL THEN PERFORM pg_notify('\(channel)', newest::text); END IF;
        END
        $batch$;
        CREATE OR REPLACE FUNCTION livestate_write_batch_v5(writes json)
        RETURNS TABLE (n bigint, seq bigint, todo_id bigint, todo_title text, todo_completed boolean, failure text,
            claimed boolean)
        LANGUAGE sql AS $v5$ SELECT * FROM livestate_write_batch_v6(writes) $v5$;
        """

    /// A key of the server's own for a write that came without one (`WriteKey.serverMade`).
    static func serverKey() -> String { WriteKey.serverMade() }
}

/// One write as `livestate_write_batch_keyed` reads it.
struct BatchWrite: Encodable {
    var op: String
    var topic: String
    var id: Int?
    var title: String?
    var completed: Bool?
    /// An input's entry, as JSON text.
    var change: String?
    /// Take the entry's download claim (a session advisory lock keyed by its id) in its block.
    var claim: Bool?
    var key: String

    init(_ write: PostgresJournal.Write, key: String) {
        self.key = key
        topic = "todos"
        switch write {
        case .insert(let title, let completed): (op, self.title, self.completed) = ("insert", title, completed)
        case .update(let id, let title, let completed):
            (op, self.id, self.title, self.completed) = ("update", id, title, completed)
        case .delete(let id): (op, self.id) = ("delete", id)
        }
    }

    init(input topic: String, change: String, key: String, claim: Bool) {
        (op, self.topic, self.change, self.key) = ("input", topic, change, key)
        self.claim = claim ? true : nil
    }
}
