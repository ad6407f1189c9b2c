package import Domain
import Foundation
import LibEvent
import Support

/// Group commit of every write (todo writes and the other inputs): the writes that arrive while a batch is
/// in flight go together in the next one — one statement (`livestate_write_batch_v5`), one transaction,
/// one commit (one fsync) for all of them.
///
/// Each write keeps its own answer: the function runs every write in a block of its own (a savepoint), so a
/// write that fails (an unknown id, a write key used before) is rolled back alone and the others commit;
/// it returns one row per write, in order, with the journal id (consecutive within a batch: the counter row
/// stays locked from the batch's first write to its commit) or the SQLSTATE that refused it.
///
/// Every write carries a key (its client's `Idempotency-Key` or one of the server's), and no answer is
/// given that a later commit could contradict: a write never sent, or refused by the database, is
/// answered 503 (final); a batch whose outcome is unknown (the connection broke, or stayed silent) is
/// not answered but resent, alone and with the same keys, once the connection is back — the key check
/// in the function answers a write that had committed from its entry and commits one that had not; and
/// a write still unsettled when its 5 s run out is answered `outcomeUnknown` with its key (504), never
/// 503. docs/architecture-instances.md, "Faults".
extension PostgresJournal {
    /// What a committed write answers.
    package struct Committed: Sendable {
        /// The journal id of its entry.
        package var seq: Int64
        /// The todo a todo write left (nil for a delete and for the other inputs).
        package var todo: Todo?
        /// An input's entry as stored (the first request's, when answered from it); nil for a todo write.
        package var change: String?
        /// Answered from the entry of an earlier request with the same key (a client's repeat), not
        /// committed by this request.
        package var repeated = false
    }

    /// A write waiting for its batch, or in the batch in flight.
    struct QueuedWrite {
        var number: Int
        /// The journal topic (`todos` for a todo write).
        var topic: String
        var write: Write?
        /// An input's entry (nil for a todo write).
        var change: String?
        var key: String
        /// The write as one element of the batch's JSON array.
        var json: Data
        var answer: Once<Result<Committed?, JournalError>>
        var deadline: LoopTimer
        /// Gets the id when the entry's download claim was taken in its block (a selection).
        var claimed: (@Sendable (Int64) -> Void)?
        /// An attempt of it was sent and its outcome is unknown: it may have committed, so it is only ever
        /// resent with its key, or answered `outcomeUnknown`.
        var unsettled = false
    }

    /// The most writes in one batch (PostgreSQL caches 64 subtransactions per transaction; one per write).
    static let batchLimit = 64
    /// The most bytes of JSON in one batch (a batch of `batchLimit` writes of the longest titles fits); a
    /// larger input (an image) goes alone.
    static let batchBytes = 256 * 1024
    /// The most writes waiting for a batch; beyond, a write is refused at once with 503 `storage_busy`
    /// (memory bounded: about 2 KiB each, but for an album image, whose download cap bounds it).
    static let queueLimit = 1024
    /// Seconds a batch may go without an answer before its connection is presumed dead and closed: the
    /// server ends every statement within its 3 s `statement_timeout`, so silence past that is the network.
    static let silenceLimit = 4.0

    /// Queues a todo `write` for the next batch; `completion` (on the loop) gets `.committed` with the todo
    /// (nil for a delete) once its batch committed and its entry is applied here, `.notFound`, `.busy` when `queueLimit` writes
    /// are already waiting, `.unavailable` (not applied, never later) or `.outcomeUnknown` within
    /// `answerWithin` seconds when the database cannot be reached. `key` is the client's `Idempotency-Key`:
    /// a write sent again with the key of one that committed is answered with what that one did.
    package func write(
        _ write: Write, key: String? = nil,
        completion: @escaping @Sendable (Result<TodoWriteOutcome, JournalError>) -> Void
    ) {
        let key = key ?? Self.serverKey()
        enqueue(topic: "todos", write: write, change: nil, key: key, batchWrite: BatchWrite(write, key: key)) {
            completion($0.map { $0.map { .committed($0.todo) } ?? .notFound(id: Self.id(of: write)) })
        }
    }

    /// Commits one journal entry of `topic` holding `json` (an input other than a todo write) in the next
    /// batch; `completion` (on the loop) gets it once applied here — `repeated`, with the first request's
    /// entry, when `key` (the client's `Idempotency-Key`) was committed before — or why not, as for `write`.
    package func append(
        topic: String, json: String, key: String?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        append(topic: topic, json: json, key: key, claimed: nil, completion: completion)
    }

    /// `append`, taking the entry's download claim in its block when `claimed` is given
    /// (`PostgresJournal+Claims.swift`); `claimed` gets the id when the claim was taken.
    func append(
        topic: String, json: String, key: String?, claimed: (@Sendable (Int64) -> Void)?,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        let key = key ?? Self.serverKey()
        let batchWrite = BatchWrite(input: topic, change: json, key: key, claim: claimed != nil)
        enqueue(topic: topic, write: nil, change: json, key: key, batchWrite: batchWrite, claimed: claimed) { result in
            completion(
                result.flatMap { committed in
                    // NB: only a todo write can find nothing to change (an unknown id).
                    guard let committed else { return .failure(.failed("the entry was not written")) }
                    return .success(
                        JournalAppended(
                            seq: committed.seq, repeated: committed.repeated,
                            first: committed.repeated ? committed.change : nil))
                })
        }
    }

    /// `append` under a key of the server's.
    package func append(
        topic: String, json: String, completion: @escaping @Sendable (Result<Int64, JournalError>) -> Void
    ) {
        append(topic: topic, json: json, key: nil) { completion($0.map(\.seq)) }
    }

    private func enqueue(
        topic: String, write: Write?, change: String?, key: String, batchWrite: BatchWrite,
        claimed: (@Sendable (Int64) -> Void)? = nil,
        completion: @escaping @Sendable (Result<Committed?, JournalError>) -> Void
    ) {
        let json = (try? JSONCoding.makeEncoder().encode(batchWrite)) ?? Data()
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
            let deadline = loop.schedule(after: Self.answerWithin) { [weak self] in self?.expire(number, answer, key) }
            queued.append(
                QueuedWrite(
                    number: number, topic: topic, write: write, change: change, key: key, json: json, answer: answer,
                    deadline: deadline, claimed: claimed))
            sendBatch()
        }
    }

    /// Sends the waiting writes (up to `batchLimit` and `batchBytes`) as one batch, unless one is in flight.
    /// Writes left unsettled by an unknown outcome go first and alone, so the writes queued behind them
    /// are never sent on a connection that may be stuck again (their 503 at the deadline stays final).
    func sendBatch() {
        guard inFlight.isEmpty, !queued.isEmpty, let connection, connection.isReady else { return }
        let settling = queued[0].unsettled
        var count = 0
        var bytes = 2
        while count < min(queued.count, Self.batchLimit), !settling || queued[count].unsettled,
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
        inFlight = batch
        // NB: a connection that does not answer is presumed dead; its batch is resent after the reconnect.
        let watchdog = silence(connection, "a batch of \(batch.count) writes")
        connection.query(Self.batchStatement, [String(decoding: array, as: UTF8.self)]) { [self] result in
            watchdog.cancel()
            inFlight = []
            settle(batch, result)
            sendBatch()
        }
    }

    /// A write's deadline: still queued and never sent, it is taken out (503: final); sent and unsettled,
    /// or in flight, or committed before under its key and still being read, its outcome is unknown to
    /// this instance: `outcomeUnknown` with its key, and nothing more is sent for it.
    private func expire(_ number: Int, _ answer: Once<Result<Committed?, JournalError>>, _ key: String) {
        if let index = queued.firstIndex(where: { $0.number == number }) {
            let write = queued.remove(at: index)
            guard write.unsettled else {
                answer.call(.failure(.unavailable("PostgreSQL did not take the write in time")))
                return
            }
        }
        if answer.call(.failure(.outcomeUnknown(key: key))) {
            Log.error("postgres: a write got no answer within \(Self.answerWithin) s; outcome unknown (key \(key))")
        }
    }

    /// Answers every write waiting for a batch (shutdown): the unsettled ones `outcomeUnknown`.
    func answerQueued(_ reason: String) {
        let waiting = queued
        queued = []
        for write in waiting {
            finish(write, .failure(write.unsettled ? .outcomeUnknown(key: write.key) : .unavailable(reason)))
        }
    }

    private func finish(_ write: QueuedWrite, _ result: Result<Committed?, JournalError>) {
        write.deadline.cancel()
        write.answer.call(result)
    }

    /// Puts the writes of a batch that failed as a whole back at the head of the queue, in order.
    private func requeue(_ writes: [QueuedWrite], unsettled: Bool) {
        let open = writes.filter { !$0.answer.isDone }.map { write in
            var write = write
            write.unsettled = write.unsettled || unsettled
            return write
        }
        queued.insert(contentsOf: open, at: 0)
    }

    /// Answers each write of `batch` from its row of `result`, and applies the committed ones.
    private func settle(_ batch: [QueuedWrite], _ result: Result<PostgresRows, PostgresError>) {
        let rows: PostgresRows
        switch result {
        case .success(let answer): rows = answer
        case .failure(let error):
            failed(batch, error)
            return
        }
        commits += 1
        largestBatch = max(largestBatch, batch.count)
        var entries: [Entry] = []
        var answers: [(QueuedWrite, Result<Committed?, JournalError>)] = []
        for (index, write) in batch.enumerated() {
            guard rows.rows.indices.contains(index), rows.rows[index].count == 7 else {
                finish(write, .failure(.failed("the batch returned no row for the write")))
                continue
            }
            if let state = rows.rows[index][5] {
                refused(write, sqlState: state)
                continue
            }
            guard let seq = rows.integer(index, 1) else {
                finish(write, .failure(.failed("the batch returned no journal id")))
                continue
            }
            let todo = rows.integer(index, 2).map { id in
                Todo(id: Int(id), title: rows.rows[index][3] ?? "", completed: rows.rows[index][4] == "t")
            }
            let change: Change
            switch (write.write, todo) {
            case (nil, _): change = .input(topic: write.topic, json: write.change ?? "")
            case (.delete(let id)?, _): change = Change(TodoChange.delete(id: id))
            case (_, let todo?): change = Change(TodoChange.upsert(todo))
            default:
                finish(write, .failure(.failed("the batch returned no todo")))
                continue
            }
            if rows.rows[index][6] == "t" {
                claims.insert(seq)
                write.claimed?(seq)
            }
            entries.append(Entry(seq: seq, change: change))
            let answered: Todo? = if case .upsert(let todo)? = change.todoChange { todo } else { nil }
            answers.append((write, .success(Committed(seq: seq, todo: answered, change: write.change))))
        }
        committedWrites += entries.count
        deliver(entries, answers)
    }

    /// A batch that failed as a whole. Not sent or not answered: every write waits for the next connection
    /// (the ones that were sent now unsettled). Refused by the database (a statement timeout): this attempt
    /// committed nothing, so a write never sent before is answered 503 and an unsettled one tries again.
    private func failed(_ batch: [QueuedWrite], _ error: PostgresError) {
        switch error.kind {
        case .unreachable, .outcomeUnknown:
            if error.kind == .outcomeUnknown {
                Log.error(
                    "postgres: connection lost during a batch of \(batch.count) writes; outcome unknown, resent"
                        + " with their keys once reconnected: \(error)")
            }
            requeue(batch, unsettled: error.kind == .outcomeUnknown)
        case .refused:
            if batch.contains(where: { $0.claimed != nil }) { releaseStrayClaims() }
            let timedOut = error.sqlState == "57014"
            for write in batch where !write.unsettled {
                finish(
                    write,
                    .failure(
                        timedOut
                            ? .unavailable("PostgreSQL did not commit in time")
                            : .failed(error.message, code: error.sqlState.map { .postgres(sqlState: $0) }))
                )
            }
            let unsettled = batch.filter(\.unsettled)
            if timedOut {
                requeue(unsettled, unsettled: true)
            } else {
                for write in unsettled { finish(write, .failure(.outcomeUnknown(key: write.key))) }
            }
        }
    }

    /// A write its block refused: an unknown id, or a key committed before (answered with what that write did).
    private func refused(_ write: QueuedWrite, sqlState: String) {
        switch sqlState {
        case "P0002": finish(write, .success(nil))
        case "23505": answerFromFirstAttempt(write)
        default: finish(write, .failure(.failed("PostgreSQL refused the write", code: .postgres(sqlState: sqlState))))
        }
    }

    /// Answers a write whose key was committed before from that entry, once it is applied here. A write this
    /// instance resent after an unknown outcome is answered as its own first attempt (not `repeated`).
    private func answerFromFirstAttempt(_ write: QueuedWrite) {
        guard let connection, connection.isReady else { return requeue([write], unsettled: true) }
        connection.query(Self.keyedStatement, [write.key]) { [self] result in
            guard case .success(let rows) = result else {
                // Committed under its key: the resend reads it again.
                requeue([write], unsettled: true)
                sendBatch()
                return
            }
            guard !rows.rows.isEmpty, let first = PostgresEntries.entry(rows, 0) else {
                return finish(write, .failure(.failed("the write key names no journal entry")))
            }
            guard first.change.collection == write.topic else { return finish(write, .failure(.keyReused)) }
            var todo: Todo?
            if write.write != nil, case .upsert(let upserted)? = first.change.todoChange { todo = upserted }
            let committed = Committed(
                seq: first.seq, todo: todo, change: write.write == nil ? first.change.document ?? "" : nil,
                repeated: !write.unsettled)
            write.deadline.cancel()
            let answer = write.answer
            // Committed: answer once applied here, or a second later anyway.
            loop.schedule(after: 1) { answer.call(.success(committed)) }
            waiting.append((first.seq, { answer.call(.success(committed)) }))
            catchUp()
        }
    }

    /// Applies a batch's committed entries at once when they follow the last applied one (the instance that
    /// wrote them needs no catch-up query for its own writes), then answers. After a gap (another instance
    /// committed in between, not read yet) they wait in `deferred` and are applied as soon as the reader has
    /// read what comes before them; entries a catch-up on the reader applied already are answered at once.
    private func deliver(_ entries: [Entry], _ answers: [(QueuedWrite, Result<Committed?, JournalError>)]) {
        guard !entries.isEmpty else { return }
        for (write, _) in answers { write.deadline.cancel() }
        deferred.append(contentsOf: entries.filter { $0.seq > lastApplied })
        deferred.sort { $0.seq < $1.seq }
        applyDeferred()
        release(held: 0)
        for (entry, (write, result)) in zip(entries, answers) {
            guard entry.seq > lastApplied else {
                write.answer.call(result)
                continue
            }
            let answer = write.answer
            // Committed: answer once applied here, or a second later anyway (never 503 now).
            loop.schedule(after: 1) { answer.call(result) }
            waiting.append((entry.seq, { answer.call(result) }))
        }
        if !deferred.isEmpty { readGap() }
    }

    /// Reads the entries before this instance's deferred ones on the write connection, right after the batch
    /// (before the next batch): that read's snapshot is after the commit, so one round trip fills the gap,
    /// where a catch-up already running on the reader may predate the commit and need a second.
    private func readGap() {
        guard following != nil, let connection, connection.isReady else { return catchUp() }
        connection.query(Self.catchUpStatement, [String(lastApplied)]) { [self] result in
            guard case .success(let rows) = result, rows.integer(0, 3).map({ lastApplied + 1 >= $0 }) ?? true else {
                return catchUp()
            }
            apply(rows)
            release(held: 0)
            if !deferred.isEmpty { catchUp() }
        }
    }
}
