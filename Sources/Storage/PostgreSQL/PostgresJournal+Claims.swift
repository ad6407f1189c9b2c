import Domain
import LibEvent
import Support

/// Download claims of album selections (docs/architecture-instances.md, "A downloader that dies"): the
/// instance that journals a selection takes a session-level advisory lock keyed by the selection's journal
/// id in the same statement, and holds it until it has journaled the outcome. PostgreSQL releases a session's
/// locks when its connection ends, so an instance killed mid-download frees its claim at once (a host that
/// vanishes: once TCP keepalive gives up, about 11 s); another instance then takes the claim and downloads.
/// The outcome is journaled with a write key of its own (`SelectionDownloads.outcomeKey`), so it is journaled once even when a
/// claim was lost (the database went away and came back) and two instances downloaded.
///
/// NB: journal ids start above 2³⁴ (the counter starts from the clock), so they never meet the schema's and
/// retention's advisory lock keys (7428001, 7428002).
extension PostgresJournal: DownloadClaims {
    /// Commits a selection entry of `topic` holding `json` under `key` and takes its download claim in the
    /// same transaction (its block of the batch: `livestate_write_batch_v5`); `claimed` runs on the loop
    /// as soon as the commit answered, before the entry is applied here, with the id when the claim was
    /// taken. `completion` as for `append`.
    package func appendClaimed(
        topic: String, json: String, key: String?, claimed: @escaping @Sendable (Int64) -> Void,
        completion: @escaping @Sendable (Result<JournalAppended, JournalError>) -> Void
    ) {
        append(topic: topic, json: json, key: key, claimed: claimed, completion: completion)
    }

    /// Takes the download claim of the selection `seq` unless it is held (its downloader is alive) or the
    /// outcome keyed `key` is journaled already; `done(true)` on the loop when this instance holds it now.
    package func claim(_ seq: Int64, outcome key: String, _ done: @escaping @Sendable (Bool) -> Void) {
        loop.execute { [self] in
            guard let connection, connection.isReady else { return done(false) }
            connection.query(Self.claimStatement, [String(seq), key]) { [self] result in
                guard case .success(let rows) = result else { return done(false) }
                let taken = rows.rows.first?[0] == "t"
                if taken { claims.insert(seq) }
                done(taken)
            }
        }
    }

    /// Gives the download claim of the selection `seq` back (its outcome is journaled, or moot).
    package func unclaim(_ seq: Int64) {
        loop.execute { [self] in
            claims.remove(seq)
            connection?.query("SELECT pg_advisory_unlock($1::bigint)", [String(seq)]) { _ in }
        }
    }

    /// A batch with a selection failed as a whole (a statement timeout) after its block may have taken the
    /// claim: a session-level advisory lock outlives the rollback of the transaction that took it, so the
    /// session would hold a claim for an id that was rolled back — and taken again by the next entry, whose
    /// downloader (on any instance) would then never get its claim. Releases every advisory lock of the
    /// session but the claims it holds for committed selections; sent before the next batch.
    func releaseStrayClaims() {
        guard let connection, connection.isReady else { return }
        let held = "{" + claims.map(String.init).joined(separator: ",") + "}"
        connection.query(Self.releaseStrayStatement, [held]) { result in
            if case .failure(let error) = result { Log.error("postgres: stray download claims not released: \(error)") }
        }
    }

    /// Runs `work` on the loop after `seconds`.
    package func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void) {
        loop.schedule(after: seconds, work)
    }

    /// Releases the session's advisory locks on bigint keys (`objsubid` 1; the key is `classid`, `objid`) other
    /// than `$1`.
    static let releaseStrayStatement = """
        SELECT pg_advisory_unlock(k) FROM (
            SELECT (l.classid::bigint << 32) | l.objid::bigint AS k FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.pid = pg_backend_pid() AND l.granted
        ) held WHERE k <> ALL($1::bigint[])
        """

    /// The claim, not taken when the outcome is there already (`CASE` evaluates the lock only then).
    static let claimStatement = """
        SELECT CASE WHEN EXISTS (SELECT 1 FROM livestate_entries WHERE write_key = $2) THEN false
        ELSE pg_try_advisory_lock($1::bigint) END
        """
}
