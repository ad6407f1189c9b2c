package import Dispatch
import Domain
import Foundation
import Support
import Synchronization

/// The batches of `DocumentStore` on the shared database: each planned and committed under `writeLock`.
extension PostgresDocumentJournal: DocumentJournal {
    package var isShared: Bool { true }

    package func commitBatch(
        after seq: Int64, keys: [String], until deadline: DispatchTime,
        _ plan: (_ others: [JournalEntry], _ keyed: [String: KeyedEntry]) -> [JournalWrite]
    ) throws(JournalError) -> [Int64] {
        // NB: writes that waited their time behind a catch-up are refused here, not by closing a good connection.
        guard DispatchTime.now() < deadline - Self.settleTime else {
            throw .unavailable("PostgreSQL did not take the change in time")
        }
        // NB: planned on the items as this server has them; when the database had moved on, planned again on what
        // the attempt read and sent at once again, and in the end under the lock.
        var (after, others, keyed) = (seq, [JournalEntry](), [String: KeyedEntry]())
        var next = expectedID.withLock { $0 }
        var (tries, moved) = (0, 0)
        while let first = next, tries < Self.optimisticTries {
            tries += 1
            // NB: a key found committed is answered from its entry by the plan, and no longer checked.
            let unread = keys.filter { keyed[$0] == nil }
            let writes = plan(others, keyed)
            // NB: only entries a plan was given count as this server's: the locked path reads from here, so the
            // entries the last attempt read and no plan got yet are read again there, not skipped.
            after = max(after, others.last?.seq ?? after)
            switch try commitAtOnce(writes, after: after, keys: unread, first: first, until: deadline) {
            case .committed(let seqs):
                count { $0.atOnce[tries - 1] += 1 }
                return seqs
            case .moved(let read):
                moved += 1
                count { $0.moved += 1 }
                if read.prunedBelow > after + 1 { throw .behind(prunedBelow: read.prunedBelow) }
                (others, next) = (read.entries, read.next)
                keyed.merge(read.keyed) { first, _ in first }
            case .unsent: next = nil
            }
        }
        count { moved == Self.optimisticTries ? ($0.lockedAfterTries += 1) : ($0.lockedAtFirst += 1) }
        return try commitLocked(after: after, keys: keys, until: deadline, plan)
    }

    /// The most times a batch is planned without the lock while others write, before it is planned under it.
    static let optimisticTries = 3

    /// What `commitAtOnce` did.
    private enum AtOnce {
        case committed([Int64])
        /// Nothing written: the database had moved on, as read.
        case moved(BatchRead)
        /// Nothing sent: the writes change nothing.
        case unsent
    }

    /// Commits `writes`, planned without reading, in one statement (`tryCommit`), or says what the database
    /// held when it had moved on (nothing written).
    private func commitAtOnce(
        _ writes: [JournalWrite], after seq: Int64, keys: [String], first: Int64, until deadline: DispatchTime
    ) throws(JournalError) -> AtOnce {
        let (rows, seqs, claims) = Self.rows(writes, first: first)
        // NB: a plan that writes nothing may still read the state (a checkpoint): it reads the others' entries first.
        guard !rows.isEmpty else { return .unsent }
        let sql = Self.tryCommit(
            rows, after: seq, keys: keys, first: first, claims: claims, numbering: dataSet == .seeds)
        let used = Mutex<PostgresConnection?>(nil)
        let answer = wait(for: nil, sql, isScript: true, until: deadline - Self.settleTime) { connection in
            used.withLock { $0 = connection }
        }
        switch answer {
        case .success(let found) where found.rows.isEmpty:
            committed(writes, next: first + Int64(rows.count))
            return .committed(seqs)
        case .success(let found):
            expectedID.withLock { $0 = nil }
            return .moved(Self.batchRead(found))
        case .failure(let error) where error.kind != .outcomeUnknown:
            expectedID.withLock { $0 = nil }
            if let session = used.withLock({ $0 }) { abandon(session, rollingBack: false, releasing: claims) }
            throw .unavailable("PostgreSQL did not commit: \(error.message)")
        case .failure(let error):
            expectedID.withLock { $0 = nil }
            let settled = try settle(rows[0], seqs, after: error, until: deadline)
            tally(writes)
            return .committed(settled)
        }
    }

    /// Commits a batch planned under the writers' lock on what the others committed (`lockAndRead`,
    /// `writeAndCommit`).
    private func commitLocked(
        after seq: Int64, keys: [String], until deadline: DispatchTime,
        _ plan: (_ others: [JournalEntry], _ keyed: [String: KeyedEntry]) -> [JournalWrite]
    ) throws(JournalError) -> [Int64] {
        // NB: the commit is sent by this time, so that an answer lost with the connection can still be settled.
        let statements = deadline - Self.settleTime
        expectedID.withLock { $0 = nil }
        guard DispatchTime.now() < statements else { throw .unavailable("PostgreSQL did not take the change in time") }
        let used = Mutex<PostgresConnection?>(nil)
        let answer = wait(
            for: nil, Self.lockAndRead(after: seq, keys: keys), isScript: true, until: statements
        ) { connection in used.withLock { $0 = connection } }
        guard case .success(let found) = answer, let session = used.withLock({ $0 }) else {
            if let session = used.withLock({ $0 }) { abandon(session) }
            guard case .failure(let error) = answer else {
                throw .unavailable("PostgreSQL is unreachable: no connection")
            }
            throw .unavailable("PostgreSQL did not take the change: \(error.message)")
        }
        let read = Self.batchRead(found)
        if read.prunedBelow > seq + 1 {
            abandon(session)
            throw .behind(prunedBelow: read.prunedBelow)
        }
        let writes = plan(read.entries, read.keyed)
        let (rows, seqs, claims) = Self.rows(writes, first: read.next)
        guard !rows.isEmpty else {
            if case .failure(let error) = wait(for: session, "COMMIT", until: statements) {
                abandon(session)
                throw .unavailable("PostgreSQL did not take the change: \(error.message)")
            }
            expectedID.withLock { $0 = read.next }
            return []
        }
        let script = Self.writeAndCommit(rows, first: read.next, claims: claims, numbering: dataSet == .seeds)
        switch wait(for: session, script, isScript: true, until: statements) {
        case .success:
            // NB: the next batch is planned without reading first: when others wrote meanwhile, its attempt reads.
            committed(writes, next: read.next + Int64(rows.count))
            return seqs
        case .failure(let error) where error.kind != .outcomeUnknown:
            abandon(session, releasing: claims)
            throw .unavailable("PostgreSQL did not commit: \(error.message)")
        case .failure(let error):
            abandon(session)
            let settled = try settle(rows[0], seqs, after: error, until: deadline)
            tally(writes)
            return settled
        }
    }

    // NB: a NOTIFY for entries a batch's attempt read already, or that came while the catch-up waited behind a
    // batch, would cost a round trip on the one connection between two batches for nothing.
    package func announcesNothing(after seq: Int64) -> Bool {
        let nothing = announced.withLock { !$0.unknown && seq >= $0.seq }
        if nothing { count { $0.skippedCatchUps += 1 } }
        return nothing
    }

    package func committed(after seq: Int64, limit: Int) throws(JournalError) -> [JournalEntry] {
        // NB: a wake-up that named no entry is answered by this read; one that comes during it sets it again.
        announced.withLock { $0.unknown = false }
        switch wait(for: nil, Self.entriesAfter, [String(seq), String(limit)], until: .now() + 3) {
        case .success(let rows):
            let found = Self.records(rows)
            count { tally in
                tally.catchUps += 1
                if found.entries.isEmpty { tally.emptyCatchUps += 1 }
            }
            if let below = found.prunedBelow, seq + 1 < below { throw .behind(prunedBelow: below) }
            if let last = found.entries.last {
                expectedID.withLock { expected in expected = expected.map { max($0, last.seq + 1) } }
            }
            return found.entries
        case .failure(let error):
            announced.withLock { $0.unknown = true }
            throw .unavailable(error.message)
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
    /// first entry (`first`, the id `seqs[0]`) is there or not; when the database cannot say before `deadline`,
    /// the outcome stays unknown. The entry is matched by its change and key too: a batch planned without reading
    /// may have found its first id taken by another server's entry.
    private func settle(_ first: BatchRow, _ seqs: [Int64], after error: PostgresError, until deadline: DispatchTime)
        throws(JournalError) -> [Int64]
    {
        Log.error("postgres: the answer to a commit of \(seqs.count) change(s) was lost (\(error)); outcome unknown")
        let key = first.writeKey.map { Self.literal($0.key) } ?? "NULL"
        let entry = """
            SELECT count(*) FROM livestate_entries WHERE seq = \(seqs[0]) AND resource = \(Self.literal(first.resource))
            AND key = \(Self.literal(first.key)) AND write_key IS NOT DISTINCT FROM \(key)
            """
        while DispatchTime.now() < deadline {
            let found = script("SELECT pg_advisory_xact_lock(\(Self.writeLock)); " + entry, until: deadline)
            switch found {
            case .success(let rows) where rows.integer() == 1: return seqs
            case .success: throw .unavailable("PostgreSQL did not commit the change")
            case .failure: Thread.sleep(forTimeInterval: 0.1)
            }
        }
        throw .outcomeUnknown(key: nil)
    }
}
