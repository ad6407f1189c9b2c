package import Domain
import LibEvent

/// Download claims of album selections (docs/architecture-instances.md, "A downloader that dies"): the
/// instance that journals a selection takes a session-level advisory lock keyed by the selection's journal
/// id in the same statement, and holds it until it has journaled the outcome. PostgreSQL releases a session's
/// locks when its connection ends, so an instance killed mid-download frees its claim at once (a host that
/// vanishes: once TCP keepalive gives up, about 11 s); another instance then takes the claim and downloads.
/// The outcome is journaled with a write key of its own (`SharedInputs.outcomeKey`), so it is journaled once even when a
/// claim was lost (the database went away and came back) and two instances downloaded.
///
/// NB: journal ids start above 2³⁴ (the counter starts from the clock), so they never meet the schema's and
/// retention's advisory lock keys (7428001, 7428002).
extension PostgresJournal: DownloadClaims {
    /// Commits a selection entry of `topic` holding `json` and takes its download claim in the same
    /// statement; `claimed` runs on the loop as soon as the commit answered, before the entry is applied
    /// here, with the id when the claim was taken. `completion` as for `append`.
    package func appendClaimed(
        topic: String, json: String, claimed: @escaping @Sendable (Int64) -> Void,
        completion: @escaping @Sendable (Result<Int64, TodoError>) -> Void
    ) {
        commit(Self.claimedInputStatement, [topic, json], completion) { rows in
            guard let seq = rows.integer(0, 0) else { return .failure(.storage("the entry returned no row")) }
            if rows.rows[0][2] == "t" { claimed(seq) }
            return .success(seq)
        }
    }

    /// Commits an outcome entry under the write key `key`, once across instances: when another instance
    /// journaled that key first, `completion` gets that entry's id instead (nothing is written twice).
    package func append(
        topic: String, json: String, key: String,
        completion: @escaping @Sendable (Result<Int64, TodoError>) -> Void
    ) {
        let firstEntry: @Sendable (PostgresRows) -> Result<Int64, TodoError> = { rows in
            rows.integer(0, 0).map { .success($0) } ?? .failure(.storage("the first entry of the key is gone"))
        }
        let first: Settle<Int64> = (Self.keyedInputStatement, [key], firstEntry)
        commit(Self.outcomeStatement, [topic, json, key], completion, settle: first) { rows in
            rows.integer(0, 0).map { .success($0) } ?? .failure(.storage("the entry returned no row"))
        }
    }

    /// Takes the download claim of the selection `seq` unless it is held (its downloader is alive) or the
    /// outcome keyed `key` is journaled already; `done(true)` on the loop when this instance holds it now.
    package func claim(_ seq: Int64, outcome key: String, _ done: @escaping @Sendable (Bool) -> Void) {
        loop.execute { [self] in
            guard let connection, connection.isReady else { return done(false) }
            connection.query(Self.claimStatement, [String(seq), key]) { result in
                guard case .success(let rows) = result else { return done(false) }
                done(rows.rows.first?[0] == "t")
            }
        }
    }

    /// Gives the download claim of the selection `seq` back (its outcome is journaled, or moot).
    package func unclaim(_ seq: Int64) {
        loop.execute { [self] in
            connection?.query("SELECT pg_advisory_unlock($1::bigint)", [String(seq)]) { _ in }
        }
    }

    /// Runs `work` on the loop after `seconds`.
    package func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void) {
        loop.schedule(after: seconds, work)
    }

    /// `inputStatement` that also takes the claim keyed by the new entry's id (a session lock: it outlives
    /// the statement's transaction and ends with the connection).
    static let claimedInputStatement = """
        WITH seq AS (UPDATE livestate_counter SET last_id = last_id + 1 RETURNING last_id),
        ev AS (INSERT INTO livestate_events (id, topic, change) SELECT seq.last_id, $1, $2 FROM seq RETURNING id)
        SELECT ev.id, pg_notify('\(channel)', ev.id::text), pg_try_advisory_lock(ev.id) FROM ev
        """

    /// `inputStatement` with a write key: a second entry with the same key fails the unique index (23505).
    static let outcomeStatement = """
        WITH seq AS (UPDATE livestate_counter SET last_id = last_id + 1 RETURNING last_id),
        ev AS (
            INSERT INTO livestate_events (id, topic, change, write_key)
            SELECT seq.last_id, $1, $2, $3 FROM seq RETURNING id
        )
        SELECT ev.id, pg_notify('\(channel)', ev.id::text) FROM ev
        """

    /// The entry an input's write key committed.
    static let keyedInputStatement = "SELECT id FROM livestate_events WHERE write_key = $1"

    /// The claim, not taken when the outcome is there already (`CASE` evaluates the lock only then).
    static let claimStatement = """
        SELECT CASE WHEN EXISTS (SELECT 1 FROM livestate_events WHERE write_key = $2) THEN false
        ELSE pg_try_advisory_lock($1::bigint) END
        """
}
