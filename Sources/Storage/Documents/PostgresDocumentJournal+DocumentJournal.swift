package import Dispatch
import Domain
import Foundation
import Support

/// The batches of `DocumentStore` on the shared database: each planned and committed under `writeLock`.
extension PostgresDocumentJournal: DocumentJournal {
    package var isShared: Bool { true }

    package func commitBatch(
        after seq: Int64, keys: [String], until deadline: DispatchTime,
        _ plan: (_ others: [JournalEntry], _ keyed: [String: KeyedEntry]) -> [JournalWrite]
    ) throws(JournalError) -> [Int64] {
        // NB: the commit is sent by this time, so that an answer lost with the connection can still be settled.
        let statements = deadline - Self.settleTime
        // NB: writes that waited their time behind a catch-up are refused here, not by closing a good connection.
        guard DispatchTime.now() < statements else { throw .unavailable("PostgreSQL did not take the change in time") }
        let session: PostgresConnection
        var seqs: [Int64] = []
        do throws(PostgresError) {
            session = try begin(until: statements)
        } catch {
            throw .unavailable("PostgreSQL is unreachable: \(error.message)")
        }
        var behind: Int64?
        var claims: [Int64] = []
        do throws(PostgresError) {
            try step(session, "SELECT pg_advisory_xact_lock(\(Self.writeLock))", until: statements)
            let found = Self.records(try step(session, Self.entriesAfter, [String(seq), "100000"], until: statements))
            if let below = found.prunedBelow, seq + 1 < below {
                behind = below
                throw PostgresError(.refused, "entries this server has not applied were deleted")
            }
            // NB: under the lock too: a write sent again to another server meanwhile is answered from its entry.
            let keyed =
                keys.isEmpty
                ? [:] : Self.keyed(try step(session, Self.keyedEntries, [Self.json([keys])], until: statements))
            let writes = plan(found.entries, keyed)
            let count = writes.reduce(0) { $0 + $1.changes.count }
            guard count > 0 else {
                try step(session, "COMMIT", until: statements)
                return []
            }
            let taken = try step(
                session,
                "SELECT nextval(pg_get_serial_sequence('livestate_entries', 'seq')) FROM generate_series(1, $1::int)",
                [String(count)], until: statements)
            // NB: one session takes them under the lock: ascending, and no other writer's in between.
            seqs = taken.rows.indices.compactMap { taken.integer($0, 0) }.sorted()
            guard seqs.count == count else { throw PostgresError(.refused, "no journal ids were given") }
            var rows: [BatchRow] = []
            rows.reserveCapacity(count)
            var claimed: [Int64] = []
            for write in writes {
                if write.claim, !write.changes.isEmpty { claimed.append(seqs[rows.count]) }
                for (index, change) in write.changes.enumerated() {
                    let key = index == 0 ? write.key : nil
                    rows.append((change.collection, change.key, seqs[rows.count], change.document, key))
                }
            }
            let batch = Self.batch(rows)
            try step(session, Self.logAndRemove, [batch], until: statements)
            let keep = Self.keepAndNotify(numbering: dataSet == .seeds)
            try step(session, keep, [batch, Self.channel], until: statements)
            if !claimed.isEmpty {
                claims = claimed
                try step(session, Self.takeClaims, [Self.array(claimed)], until: statements)
            }
        } catch {
            abandon(session, releasing: claims)
            if let behind { throw .behind(prunedBelow: behind) }
            throw .unavailable("PostgreSQL did not take the change: \(error.message)")
        }
        switch wait(for: session, "COMMIT", until: statements) {
        case .success: return seqs
        case .failure(let error) where error.kind != .outcomeUnknown:
            abandon(session, releasing: claims)
            throw .unavailable("PostgreSQL did not commit: \(error.message)")
        case .failure(let error):
            abandon(session)
            return try settle(seqs, after: error, until: deadline)
        }
    }

    package func committed(after seq: Int64, limit: Int) throws(JournalError) -> [JournalEntry] {
        switch wait(for: nil, Self.entriesAfter, [String(seq), String(limit)], until: .now() + 3) {
        case .success(let rows):
            let found = Self.records(rows)
            if let below = found.prunedBelow, seq + 1 < below { throw .behind(prunedBelow: below) }
            return found.entries
        case .failure(let error): throw .unavailable(error.message)
        }
    }

    package func current() throws(JournalError) -> (seq: Int64, resources: [DocumentRows]) {
        let deadline = DispatchTime.now() + 10
        do throws(PostgresError) {
            let session = try begin(until: deadline)
            do throws(PostgresError) {
                // NB: under the writers' lock: the items are those of the newest entry, and none is half written.
                try step(session, "SET LOCAL statement_timeout = 0", until: deadline)
                try step(session, "SELECT pg_advisory_xact_lock(\(Self.writeLock))", until: deadline)
                let newest = try step(
                    session, "SELECT coalesce(max(seq), 0) FROM livestate_entries", until: deadline)
                let resources = try readResources(session, until: deadline)
                try step(session, "COMMIT", until: deadline)
                return (newest.integer() ?? 0, resources)
            } catch {
                abandon(session)
                throw error
            }
        } catch {
            throw .unavailable("PostgreSQL did not answer with the items: \(error.message)")
        }
    }

    /// A commit whose answer was lost: once the writer lock is free (the session that sent it has ended) its
    /// first entry is there or not; when the database cannot say before `deadline`, the outcome stays unknown.
    private func settle(_ seqs: [Int64], after error: PostgresError, until deadline: DispatchTime)
        throws(JournalError) -> [Int64]
    {
        Log.error("postgres: the answer to a commit of \(seqs.count) change(s) was lost (\(error)); outcome unknown")
        while DispatchTime.now() < deadline {
            let found = script(
                "SELECT pg_advisory_xact_lock(\(Self.writeLock)); "
                    + "SELECT count(*) FROM livestate_entries WHERE seq = \(seqs[0])", until: deadline)
            switch found {
            case .success(let rows) where rows.integer() == 1: return seqs
            case .success: throw .unavailable("PostgreSQL did not commit the change")
            case .failure: Thread.sleep(forTimeInterval: 0.1)
            }
        }
        throw .outcomeUnknown(key: nil)
    }
}
