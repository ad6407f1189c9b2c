import LibEvent

/// The download claims of album selections (`DocumentDownloadClaims`): a session-level advisory lock of the
/// journal's connection, keyed by the selection's entry id, taken in the transaction that commits the
/// selection (`commitBatch`, for a write with `claim`) and held until the outcome is committed. PostgreSQL
/// releases a session's locks when its connection ends, so a server killed mid-download frees its claim at once
/// (a host that vanishes: once TCP keepalive gives up); another server then takes the claim and downloads.
///
/// A claim's key is the entry id negated: the writers' and retention's locks are positive constants, which an
/// entry id may reach on a new database.
extension PostgresDocumentJournal: DocumentDownloadClaims {
    package func claim(_ seq: Int64, outcome key: String, _ done: @escaping @Sendable (Bool) -> Void) {
        loop.execute { [self] in
            guard let connection, connection.isReady else { return done(false) }
            connection.query(Self.claimStatement, [String(-seq), key]) { result in
                guard case .success(let rows) = result else { return done(false) }
                done(rows.rows.first?[0] == "t")
            }
        }
    }

    package func unclaim(_ seq: Int64) {
        loop.execute { [self] in
            connection?.query("SELECT pg_advisory_unlock($1::bigint)", [String(-seq)]) { _ in }
        }
    }

    package func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void) {
        loop.schedule(after: seconds, work)
    }

    /// The claims of `seqs` given back: a session lock outlives the rollback of the transaction that took it.
    static let releaseClaims = "SELECT pg_advisory_unlock(-k) FROM unnest($1::bigint[]) AS k"

    /// The claim, not taken when the outcome is there already (`CASE` evaluates the lock only then).
    static let claimStatement = """
        SELECT CASE WHEN EXISTS (SELECT 1 FROM livestate_entries WHERE write_key = $2) THEN false
        ELSE pg_try_advisory_lock($1::bigint) END
        """

    /// `seqs` as a PostgreSQL array literal.
    static func array(_ seqs: [Int64]) -> String {
        "{" + seqs.map(String.init).joined(separator: ",") + "}"
    }
}
