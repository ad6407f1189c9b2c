import Domain
import Foundation
import LibEvent
import Support
import Synchronization

extension PostgresJournal {
    /// The newest entries of every topic up to the start's snapshot, newest first: at most `limit`, within
    /// `bytes` of JSON (the newest always), and none at or before `replay_floor`, the newest todo entry that
    /// cannot be reverted (one written before schema version 5, without the todo before it), which is a replay
    /// boundary, never a wrong list. The sizes are read first, so an image entry beyond the bounds is never
    /// loaded (`octet_length` of a stored value reads its header, not its bytes). Blocks:
    /// startup only, after `start` and before `follow`; an unreachable database answers none (the buffer then
    /// starts at this start, as before version 5).
    package func recent(limit: Int, bytes: Int) -> [JournalRow] {
        precondition(!loop.inLoop, "recent waits for the loop")
        let answer = Mutex<[JournalRow]?>(nil)
        let ready = DispatchSemaphore(value: 0)
        loop.execute { [self] in
            let finish: @Sendable ([JournalRow]) -> Void = { rows in
                answer.withLock { $0 = rows }
                ready.signal()
            }
            guard let connection, connection.isReady else {
                Log.error("postgres: the journal's recent entries cannot be read (not connected); none replayed")
                return finish([])
            }
            let upTo = String(startSeq)
            connection.query(Self.recentSizesStatement, [upTo, String(max(0, limit))]) { result in
                guard case .success(let sizes) = result else {
                    Log.error("postgres: the journal's recent entries cannot be read; none replayed")
                    return finish([])
                }
                guard let oldest = Self.oldestRecent(sizes, bytes: bytes) else { return finish([]) }
                connection.query(Self.recentRowsStatement, [String(oldest), upTo]) { result in
                    guard case .success(let rows) = result else {
                        Log.error("postgres: the journal's recent entries cannot be read; none replayed")
                        return finish([])
                    }
                    finish(
                        rows.rows.indices.compactMap { index in
                            PostgresEntries.entry(rows, index).map {
                                JournalRow(seq: $0.seq, change: $0.change, before: rows.rows[index][4])
                            }
                        })
                }
            }
        }
        // NB: every query is answered or failed (statement timeout 3 s, a lost connection fails its queries);
        // the bound only keeps a start from hanging on a loop that no longer runs.
        guard ready.wait(timeout: .now() + 30) == .success else { return [] }
        return answer.withLock { $0 } ?? []
    }

    /// The oldest id `recent` reads from `sizes` (`recentSizesStatement`, newest first): the walk stops at
    /// `bytes` (after the newest). Nil when there is nothing to read.
    static func oldestRecent(_ sizes: PostgresRows, bytes: Int) -> Int64? {
        var oldest: Int64?
        var total: Int64 = 0
        for index in sizes.rows.indices {
            guard let seq = sizes.integer(index, 0) else { break }
            total += sizes.integer(index, 1) ?? 0
            guard oldest == nil || total <= Int64(bytes) else { break }
            oldest = seq
        }
        return oldest
    }

    /// Id and size of the newest `$2` entries up to `$1` and above the replay floor.
    static let recentSizesStatement = """
        SELECT e.seq, coalesce(octet_length(e.body), 0) + coalesce(octet_length(e.before), 0)
        FROM livestate_entries e, livestate_counter c
        WHERE e.seq <= $1::bigint AND e.seq > c.replay_floor ORDER BY e.seq DESC LIMIT $2::bigint
        """

    /// The entries from `$1` up to `$2`, newest first.
    static let recentRowsStatement = """
        SELECT seq, resource, key, body, before FROM livestate_entries
        WHERE seq >= $1::bigint AND seq <= $2::bigint ORDER BY seq DESC
        """
}
