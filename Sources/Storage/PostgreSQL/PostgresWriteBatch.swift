package import Domain
import Foundation
import HTTP
import LibEvent

/// Group commit of todo writes: the writes that arrive while a batch is in flight go together in the next
/// one — one statement (`livestate_write_batch`), one transaction, one commit (one fsync) for all of them.
///
/// Each write keeps its own answer: the function runs every write in a block of its own (a savepoint), so a
/// write that fails (an unknown id, a write key used before) is rolled back alone and the others commit;
/// it returns one row per write, in order, with the journal id (consecutive within a batch: the counter row
/// stays locked from the batch's first write to its commit) or the SQLSTATE that refused it. Nothing is
/// answered before the commit; a write still queued when its deadline comes was never sent, so its 503 is
/// final; a batch in flight when the connection breaks has an unknown outcome, settled by resending with
/// the write's `Idempotency-Key`.
extension PostgresJournal {
    /// A write waiting for its batch, or in the batch in flight.
    struct QueuedWrite {
        var number: Int
        var write: Write
        var key: String?
        /// The write as one element of the batch's JSON array.
        var json: Data
        var answer: Once<Result<Todo?, TodoError>>
        var deadline: LoopTimer
    }

    /// The most writes in one batch (PostgreSQL caches 64 subtransactions per transaction; one per write).
    static let batchLimit = 64
    /// The most bytes of JSON in one batch (a batch of `batchLimit` writes of the longest titles fits).
    static let batchBytes = 256 * 1024
    /// The most writes waiting for a batch; beyond, a write is refused at once with 503 `storage_busy`
    /// (memory bounded: about 2 KiB each at most).
    static let queueLimit = 1024

    /// Queues `write` for the next batch; `completion` (on the loop) gets the todo (nil for a delete) once
    /// its batch committed and its entry is applied here, `.notFound`, `.busy` when `queueLimit` writes are
    /// already waiting, or `.unavailable` within `answerWithin` seconds when the database cannot be reached.
    /// A write answered `.unavailable` was not committed, except when the connection broke while its batch
    /// was in flight (logged as unknown): its client settles it by sending it again with the same `key`
    /// (`Idempotency-Key`), which is answered with what the first one did and never applied twice.
    package func write(
        _ write: Write, key: String? = nil, completion: @escaping @Sendable (Result<Todo?, TodoError>) -> Void
    ) {
        let json = (try? JSONEncoder().encode(BatchWrite(write, key: key))) ?? Data()
        loop.execute { [self] in
            guard let connection, connection.isReady else {
                return completion(.failure(.unavailable("PostgreSQL is unreachable")))
            }
            guard queued.count < Self.queueLimit else {
                return completion(.failure(.busy("\(Self.queueLimit) writes are already waiting for PostgreSQL")))
            }
            writeNumber += 1
            let number = writeNumber
            let answer = Once(completion)
            let deadline = loop.schedule(after: Self.answerWithin) { [weak self] in self?.expire(number, answer) }
            queued.append(
                QueuedWrite(number: number, write: write, key: key, json: json, answer: answer, deadline: deadline))
            sendBatch()
        }
    }

    /// Sends the waiting writes (up to `batchLimit` and `batchBytes`) as one batch, unless one is in flight.
    func sendBatch() {
        guard !batchInFlight, !queued.isEmpty, let connection, connection.isReady else { return }
        var count = 0
        var bytes = 2
        while count < min(queued.count, Self.batchLimit),
            count == 0 || bytes + queued[count].json.count < Self.batchBytes
        {
            bytes += queued[count].json.count + 1
            count += 1
        }
        let batch = Array(queued.prefix(count))
        queued.removeFirst(count)
        var array = Data("[".utf8)
        for (index, write) in batch.enumerated() {
            if index > 0 { array.append(UInt8(ascii: ",")) }
            array.append(write.json)
        }
        array.append(UInt8(ascii: "]"))
        batchInFlight = true
        connection.query(Self.batchStatement, [String(decoding: array, as: UTF8.self)]) { [self] result in
            batchInFlight = false
            for write in batch { write.deadline.cancel() }
            settle(batch, result)
            sendBatch()
        }
    }

    /// A write's deadline: still queued, it is taken out (never sent: the 503 is final); in flight, its
    /// outcome is unknown and the connection, which does not answer, is presumed dead.
    private func expire(_ number: Int, _ answer: Once<Result<Todo?, TodoError>>) {
        if let index = queued.firstIndex(where: { $0.number == number }) {
            queued.remove(at: index)
            answer.call(.failure(.unavailable("PostgreSQL did not take the write in time")))
            return
        }
        guard answer.call(.failure(.unavailable("PostgreSQL did not answer in time"))) else { return }
        Log.error("postgres: a write got no answer within \(Self.answerWithin) s; outcome unknown")
        connection?.close("no answer within \(Self.answerWithin) s")
    }

    /// Answers the writes waiting for a batch (the connection broke before they were sent: not applied).
    func refuseQueued(_ reason: String) {
        let refused = queued
        queued = []
        for write in refused {
            write.deadline.cancel()
            write.answer.call(.failure(.unavailable(reason)))
        }
    }

    /// Answers each write of `batch` from its row of `result`, and applies the committed ones.
    private func settle(_ batch: [QueuedWrite], _ result: Result<PostgresRows, PostgresError>) {
        let rows: PostgresRows
        switch result {
        case .success(let answer): rows = answer
        case .failure(let error):
            if error.kind == .outcomeUnknown {
                Log.error(
                    "postgres: connection lost during a batch of \(batch.count) writes; outcome unknown: \(error)")
            }
            let refused = error.kind == .refused && error.sqlState != "57014"
            for write in batch {
                write.answer.call(.failure(refused ? .storage(error.description) : .unavailable(error.description)))
            }
            return
        }
        commits += 1
        largestBatch = max(largestBatch, batch.count)
        var entries: [Entry] = []
        var answers: [(Once<Result<Todo?, TodoError>>, Result<Todo?, TodoError>)] = []
        for (index, write) in batch.enumerated() {
            guard rows.rows.indices.contains(index), rows.rows[index].count == 6 else {
                write.answer.call(.failure(.storage("the batch returned no row for the write")))
                continue
            }
            if let state = rows.rows[index][5] {
                refused(write, sqlState: state)
                continue
            }
            guard let seq = rows.integer(index, 1) else {
                write.answer.call(.failure(.storage("the batch returned no journal id")))
                continue
            }
            let todo = rows.integer(index, 2).map { id in
                Todo(id: Int(id), title: rows.rows[index][3] ?? "", completed: rows.rows[index][4] == "t")
            }
            let change: TodoChange
            switch (write.write, todo) {
            case (.delete(let id), _): change = .delete(id: id)
            case (_, let todo?): change = .upsert(todo)
            default:
                write.answer.call(.failure(.storage("the batch returned no todo")))
                continue
            }
            entries.append(Entry(seq: seq, change: .todo(change)))
            let answered: Todo? = if case .delete = change { nil } else { todo }
            answers.append((write.answer, .success(answered)))
        }
        committedWrites += entries.count
        deliver(entries, answers)
    }

    /// A write its block refused: an unknown id, or a key used before (answered with what that write did).
    private func refused(_ write: QueuedWrite, sqlState: String) {
        switch sqlState {
        case "P0002": write.answer.call(.failure(.notFound(id: Self.id(of: write.write))))
        case "23505" where write.key != nil:
            let answer = write.answer
            commit(Self.keyedStatement, [write.key], { answer.call($0) }) { rows in
                switch rows.rows.first.flatMap({ Self.change(topic: "todos", json: $0[1] ?? "") }) {
                case .todo(.upsert(let todo)): .success(todo)
                case .todo(.delete): .success(nil)
                default: .failure(.storage("the write key names no todo write"))
                }
            }
        default: write.answer.call(.failure(.storage("PostgreSQL refused the write (SQLSTATE \(sqlState))")))
        }
    }

    /// Applies a batch's committed entries at once when they follow the last applied one (the instance that
    /// wrote them needs no catch-up query for its own writes), then answers; after a gap (another instance
    /// committed in between, not read yet) the catch-up applies them first, as for any entry.
    private func deliver(
        _ entries: [Entry], _ answers: [(Once<Result<Todo?, TodoError>>, Result<Todo?, TodoError>)]
    ) {
        guard let first = entries.first, let last = entries.last else { return }
        let consecutive = last.seq - first.seq == Int64(entries.count - 1)
        if let following, first.seq == lastApplied + 1, consecutive {
            lastApplied = last.seq
            following(entries)
            release(held: 0)
            for (answer, result) in answers { answer.call(result) }
            return
        }
        for (entry, (answer, result)) in zip(entries, answers) {
            // Committed: answer once applied here, or a second later anyway (never 503 now).
            loop.schedule(after: 1) { answer.call(result) }
            waiting.append((entry.seq, { answer.call(result) }))
        }
        catchUp()
    }

    /// The statement of a batch: `$1` is the JSON array of `BatchWrite`s.
    static let batchStatement = "SELECT * FROM livestate_write_batch($1::json)"

    /// The batch, in the database (created at start with the schema). Per write, in order, in a block of its
    /// own: the counter first (the lock that orders commits: every transaction takes it before any todo
    /// row, so none can deadlock), the todo row (an unknown id raises `no_data_found`, P0002), the journal
    /// entry with the write key (unique: 23505). A failing block is rolled back alone, its counter increment
    /// with it, so the committed ids stay consecutive. One row per write: `n`, `seq`, the todo, `failure`
    /// (the SQLSTATE, or NULL). One wake-up for the batch, whose payload is its newest id. A statement
    /// timeout is not caught (`OTHERS` excludes it): the whole batch fails, nothing committed.
    static let batchFunction = """
        CREATE OR REPLACE FUNCTION livestate_write_batch(writes json)
        RETURNS TABLE (n bigint, seq bigint, todo_id bigint, todo_title text, todo_completed boolean, failure text)
        LANGUAGE plpgsql AS $batch$
        DECLARE
            w json;
            newest bigint;
        BEGIN
            FOR w, n IN SELECT value, ordinality FROM json_array_elements(writes) WITH ORDINALITY ORDER BY ordinality
            LOOP
                seq := NULL; todo_id := NULL; todo_title := NULL; todo_completed := NULL; failure := NULL;
                BEGIN
                    UPDATE livestate_counter SET last_id = last_id + 1 RETURNING last_id INTO seq;
                    CASE w->>'op'
                    WHEN 'insert' THEN
                        INSERT INTO todos (title, completed) VALUES (w->>'title', (w->>'completed')::boolean)
                        RETURNING id, title, completed INTO todo_id, todo_title, todo_completed;
                    WHEN 'update' THEN
                        UPDATE todos SET title = COALESCE(w->>'title', todos.title),
                            completed = COALESCE((w->>'completed')::boolean, todos.completed)
                        WHERE id = (w->>'id')::bigint RETURNING id, title, completed
                        INTO todo_id, todo_title, todo_completed;
                        IF NOT FOUND THEN RAISE no_data_found; END IF;
                    WHEN 'delete' THEN
                        DELETE FROM todos WHERE id = (w->>'id')::bigint RETURNING id INTO todo_id;
                        IF NOT FOUND THEN RAISE no_data_found; END IF;
                    END CASE;
                    INSERT INTO livestate_events (id, topic, change, write_key) VALUES (seq, 'todos',
                        CASE WHEN w->>'op' = 'delete' THEN json_build_object('op', 'delete', 'id', todo_id)
                        ELSE json_build_object('op', 'upsert', 'todo', json_build_object(
                            'id', todo_id, 'title', todo_title, 'completed', todo_completed)) END::text,
                        w->>'key');
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
        """
}

/// One write as `livestate_write_batch` reads it.
private struct BatchWrite: Encodable {
    var op: String
    var id: Int?
    var title: String?
    var completed: Bool?
    var key: String?

    init(_ write: PostgresJournal.Write, key: String?) {
        self.key = key
        switch write {
        case .insert(let title, let completed): (op, self.title, self.completed) = ("insert", title, completed)
        case .update(let id, let title, let completed):
            (op, self.id, self.title, self.completed) = ("update", id, title, completed)
        case .delete(let id): (op, self.id) = ("delete", id)
        }
    }
}
