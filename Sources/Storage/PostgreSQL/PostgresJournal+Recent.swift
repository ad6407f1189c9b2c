import Foundation
import HTTP
import LibEvent
import Synchronization

extension PostgresJournal {
    /// The newest entries of every topic up to the start's snapshot, newest first: at most `limit`, within
    /// `bytes` of JSON (the newest always), and none at or before the newest todo entry that cannot be
    /// reverted — one written before schema version 5 (no `before`, no `insert`), which is a replay
    /// boundary, never a wrong list. The sizes and boundaries are read first, so an image entry beyond the
    /// bounds is never loaded (`octet_length` of a stored value reads its header, not its bytes). Blocks:
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
                            rows.integer(index, 0).map {
                                Self.row(seq: $0, topic: rows.rows[index][1] ?? "", json: rows.rows[index][2] ?? "")
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

    /// The entry of a stored row: a todo's JSON (`TodoJournalEntry`) as the `todos` collection's item with the
    /// todo before it, another input's as its topic's JSON.
    static func row(seq: Int64, topic: String, json: String) -> JournalRow {
        guard topic == JournalChange.todos, let entry = TodoJournalEntry(seq: seq, json: json) else {
            return JournalRow(seq: seq, change: .input(topic: topic, json: json))
        }
        return JournalRow(
            seq: seq, change: JournalChange(entry.change), before: entry.before.flatMap { try? JSONCoding.text($0) })
    }

    /// The oldest id `recent` reads from `sizes` (`recentSizesStatement`, newest first): the walk stops at
    /// `bytes` (after the newest), and before a boundary. Nil when there is nothing to read.
    static func oldestRecent(_ sizes: PostgresRows, bytes: Int) -> Int64? {
        var oldest: Int64?
        var total: Int64 = 0
        for index in sizes.rows.indices {
            guard let seq = sizes.integer(index, 0), sizes.rows[index][2] != "t" else { break }
            total += sizes.integer(index, 1) ?? 0
            guard oldest == nil || total <= Int64(bytes) else { break }
            oldest = seq
        }
        return oldest
    }

    /// Id, size and boundary (a todo entry without `before` or `insert`) of the newest `$2` entries up to
    /// `$1`. The CASE parses todo entries only (short); an image's entry is measured, never read.
    static let recentSizesStatement = """
        SELECT id, octet_length(change),
            CASE WHEN topic = 'todos' THEN NOT (change::jsonb ? 'before' OR change::jsonb ? 'insert') ELSE false END
        FROM livestate_events WHERE id <= $1::bigint ORDER BY id DESC LIMIT $2::bigint
        """

    /// The entries from `$1` up to `$2`, newest first.
    static let recentRowsStatement = """
        SELECT id, topic, change FROM livestate_events WHERE id >= $1::bigint AND id <= $2::bigint ORDER BY id DESC
        """
}
