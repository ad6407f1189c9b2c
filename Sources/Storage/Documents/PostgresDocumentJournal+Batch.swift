import Domain
import Support
import Synchronization

/// A batch's statements on the shared database: one round trip when no one else wrote since this server's last
/// batch, else mostly two, where one statement each took nine. Every round trip is a hop from the store's thread to the
/// journal's loop and back, and PostgreSQL plans each statement sent with its parameters anew (a PL/pgSQL
/// function keeps its plans for the session).
///
/// - At once (`tryCommit`, when `expectedID` is known): the batch, planned on the items as this server has
///   them, goes in one statement of its own transaction to `livestate_doc_write_unread_v2`, which takes
///   `writeLock` and writes it only when the database is as the server saw it: no entry after the server's
///   newest, no write under the batch's keys, the next id the one expected, no entry deleted that the server
///   has not applied. Else it writes nothing and answers what the lock's read below would have: the batch is
///   planned again on it and sent at once again, so that no batch holds the lock across a round trip while
///   others write; after `optimisticTries` such answers, it is planned under the lock (which reads again the
///   entries the last answer held: no plan got them yet):
/// - Under the lock: `lockAndRead`, one script that begins the transaction and calls `livestate_doc_read_v1`,
///   which takes `writeLock` and reads what the plan needs: the id the next entry takes and where retention's
///   deletions end (rows `0`), the entries after the server's newest (rows `1`, oldest first, the start
///   markers left out, at most 100,000), and the first entries of the writes committed under the batch's keys
///   (rows `2`); then `writeAndCommit`, one script that calls `livestate_doc_write_v1` and commits. A failure
///   inside it stops the script before the commit (nothing committed).
///
/// A lost answer leaves the outcome unknown, which the batch's first entry settles. The functions are the
/// `batch function` step, and again the `batch scans by id` step, which gave the reads of the entries after
/// the server's newest an upper bound, the id the next entry takes: a function's statements run on a
/// generic plan after five calls, which takes `seq > $1` alone for a third of the table and reads all of it,
/// a cost growing with every entry retention keeps; and again the `batch retry` step, which added `_v2`. The
/// scripts use the simple protocol, which takes no parameters: values go in as dollar-quoted literals
/// (`literal`), with a tag the text does not hold.
extension PostgresDocumentJournal {
    /// `batch function`: `livestate_doc_read_v1`, `livestate_doc_write_unread_v1` and `_v2` (see above), and
    /// `livestate_doc_write_v1`, which writes a batch's entries (`p_batch`: `batch`'s rows, each entry's id as
    /// the number, which must run from `p_first` without a gap), each with its item before it, the items of the keys it changed,
    /// each collection's largest integer id (`p_numbering`, the seeds' data set), the wake-up of the other
    /// servers with the batch's last id, and the download claims of `p_claims` (`DocumentDownloadClaims`).
    ///
    /// The ids are the entries table's own sequence, taken here: under `writeLock` no one else takes one, so
    /// the next one is the id `lockAndRead` read, and the batch is refused (`LSV04`, nothing committed) when it
    /// is not (a writer that took ids without the lock): that batch's ids are taken all the same, so the next
    /// batch reads the right one.
    ///
    /// `before` is `[place,item]` (the item's place in its collection and its JSON, byte for byte) or `null`
    /// (there was none), so that a restarted server can take the state back before its newest entries and
    /// make their events again (`DocumentRewind`). Within a batch, an entry's item before it is the key's
    /// previous entry's, and its place the one that entry left: the place it had before the batch, or, since
    /// the key's last entry that created it, that entry's id. Each key's last item goes where it was or, when
    /// the batch created it, at the id of the entry that did (the end of its collection, where a server
    /// applying the entries puts it).
    static let batchFunction = """
        CREATE OR REPLACE FUNCTION livestate_doc_read_v1(p_after bigint, p_keys json) RETURNS TABLE (
            r_part int, r_seq bigint, r_resource text, r_key text, r_body text, r_write_key text,
            r_write_request text, r_below bigint
        ) LANGUAGE plpgsql AS $read$
        DECLARE
            v_next bigint;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(writeLock));
            v_next := coalesce(
                pg_sequence_last_value(pg_get_serial_sequence('livestate_entries', 'seq')::regclass), 0) + 1;
            RETURN QUERY SELECT 0, v_next, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
                (SELECT coalesce(max(p.below), 0) FROM livestate_doc_pruned p);
            RETURN QUERY SELECT 1, e.seq, e.resource, e.key, e.body, NULL::text, NULL::text, NULL::bigint
                FROM livestate_entries e WHERE e.seq > p_after AND e.seq < v_next AND e.resource <> ''
                ORDER BY e.seq LIMIT 100000;
            RETURN QUERY SELECT 2, e.seq, e.resource, e.key, e.body, e.write_key, e.write_request, NULL::bigint
                FROM livestate_entries e WHERE e.write_key IN (SELECT json_array_elements_text(p_keys -> 0));
        END
        $read$;
        CREATE OR REPLACE FUNCTION livestate_doc_write_v1(
            p_batch json, p_first bigint, p_channel text, p_claims bigint[], p_numbering boolean
        ) RETURNS void LANGUAGE plpgsql AS $batch$
        DECLARE
            v_ids regclass := pg_get_serial_sequence('livestate_entries', 'seq')::regclass;
            v_count bigint := json_array_length(p_batch);
        BEGIN
            IF nextval(v_ids) <> p_first THEN
                RAISE EXCEPTION 'the journal ids moved while the writers'' lock was held' USING ERRCODE = 'LSV04';
            END IF;
            IF v_count > 1 THEN
                PERFORM setval(v_ids, p_first + v_count - 1);
            END IF;
            WITH w AS (
                SELECT (e->>2)::bigint AS seq, e->>0 AS resource, e->>1 AS key, nullif((e->3)::text, 'null') AS body,
                    e->>4 AS write_key, e->>5 AS write_request
                FROM json_array_elements(p_batch) AS e
            ), previous AS (
                SELECT w.*, i.place AS old_place, i.body AS old_body, lag(w.body) OVER key_order AS prev_body,
                    row_number() OVER key_order = 1 AS first
                FROM w LEFT JOIN livestate_doc_items i ON i.resource = w.resource AND i.key = w.key
                WINDOW key_order AS (PARTITION BY w.resource, w.key ORDER BY w.seq)
            ), created AS (
                SELECT previous.*, CASE WHEN first THEN old_body IS NULL ELSE prev_body IS NULL END AS creates
                FROM previous
            ), placed AS (
                SELECT created.*, max(CASE WHEN creates THEN seq END) OVER (
                    PARTITION BY resource, key ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
                ) AS created_at
                FROM created
            ), logged AS (
                INSERT INTO livestate_entries (seq, resource, key, body, before, write_key, write_request)
                SELECT seq, resource, key, body,
                    CASE WHEN creates THEN 'null'
                        ELSE '[' || coalesce(created_at, old_place) || ',' || coalesce(prev_body, old_body) || ']' END,
                    write_key, write_request
                FROM placed
            )
            DELETE FROM livestate_doc_items i USING w
            WHERE w.body IS NULL AND i.resource = w.resource AND i.key = w.key;
            WITH w AS (
                SELECT (e->>2)::bigint AS seq, e->>0 AS resource, e->>1 AS key, nullif((e->3)::text, 'null') AS body
                FROM json_array_elements(p_batch) AS e
            ), last AS (
                SELECT DISTINCT ON (resource, key) seq, resource, key, body FROM w ORDER BY resource, key, seq DESC
            ), created AS (
                SELECT e.resource, e.key, max(e.seq) AS seq FROM livestate_entries e
                WHERE e.seq >= p_first AND e.seq < p_first + v_count AND e.seq IN (SELECT seq FROM w)
                    AND e.before = 'null'
                GROUP BY e.resource, e.key
            )
            INSERT INTO livestate_doc_items (resource, key, place, body)
            SELECT last.resource, last.key, coalesce(created.seq, last.seq), last.body
            FROM last LEFT JOIN created ON created.resource = last.resource AND created.key = last.key
            WHERE last.body IS NOT NULL
            ON CONFLICT (resource, key) DO UPDATE SET body = excluded.body;
            IF p_numbering THEN
                \(largestIDs(of: "(SELECT e->>0 AS resource, e->>1 AS key FROM json_array_elements(p_batch) AS e) w"));
            END IF;
            PERFORM pg_notify(p_channel, (p_first + v_count - 1)::text);
            PERFORM pg_try_advisory_lock(-k) FROM unnest(p_claims) AS k;
        END
        $batch$;
        CREATE OR REPLACE FUNCTION livestate_doc_write_unread_v1(
            p_after bigint, p_keys json, p_batch json, p_first bigint, p_channel text, p_claims bigint[],
            p_numbering boolean
        ) RETURNS boolean LANGUAGE plpgsql AS $try$
        BEGIN
            PERFORM pg_advisory_xact_lock(\(writeLock));
            IF coalesce(pg_sequence_last_value(pg_get_serial_sequence('livestate_entries', 'seq')::regclass), 0) + 1
                    <> p_first
                OR EXISTS (SELECT 1 FROM livestate_entries e
                    WHERE e.seq > p_after AND e.seq < p_first AND e.resource <> '')
                OR EXISTS (SELECT 1 FROM livestate_entries e
                    WHERE e.write_key IN (SELECT json_array_elements_text(p_keys -> 0)))
                OR (SELECT coalesce(max(p.below), 0) FROM livestate_doc_pruned p) > p_after + 1
            THEN
                RETURN false;
            END IF;
            PERFORM livestate_doc_write_v1(p_batch, p_first, p_channel, p_claims, p_numbering);
            RETURN true;
        END
        $try$;
        CREATE OR REPLACE FUNCTION livestate_doc_write_unread_v2(
            p_after bigint, p_keys json, p_batch json, p_first bigint, p_channel text, p_claims bigint[],
            p_numbering boolean
        ) RETURNS TABLE (
            r_part int, r_seq bigint, r_resource text, r_key text, r_body text, r_write_key text,
            r_write_request text, r_below bigint
        ) LANGUAGE plpgsql AS $try2$
        BEGIN
            IF NOT livestate_doc_write_unread_v1(p_after, p_keys, p_batch, p_first, p_channel, p_claims, p_numbering)
            THEN
                RETURN QUERY SELECT * FROM livestate_doc_read_v1(p_after, p_keys);
            END IF;
        END
        $try2$;
        """

    /// The script that begins a batch's transaction and reads under `writeLock` what its plan needs
    /// (`livestate_doc_read_v1`, after the entry `seq`, the writes committed under `keys`).
    static func lockAndRead(after seq: Int64, keys: [String]) -> String {
        "BEGIN; SELECT * FROM livestate_doc_read_v1(\(seq), \(literal(json([keys])))::json)"
    }

    /// What `lockAndRead` read.
    struct BatchRead {
        /// The id the batch's first entry takes.
        var next: Int64 = 1
        /// Where retention's deletions end (0: none yet).
        var prunedBelow: Int64 = 0
        /// The entries after the server's newest, oldest first.
        var entries: [JournalEntry] = []
        /// The writes committed under the batch's keys: their first entries, by key.
        var keyed: [String: KeyedEntry] = [:]
    }

    /// `lockAndRead`'s rows.
    static func batchRead(_ rows: PostgresRows) -> BatchRead {
        var read = BatchRead()
        for index in rows.rows.indices {
            let row = rows.rows[index]
            switch row.first ?? nil {
            case "0":
                read.next = rows.integer(index, 1) ?? 1
                read.prunedBelow = rows.integer(index, 7) ?? 0
            case "1":
                if let entry = entry(rows, index, from: 1) { read.entries.append(entry) }
            case "2":
                if let entry = entry(rows, index, from: 1), let key = row[5] {
                    read.keyed[key] = KeyedEntry(entry: entry, request: row[6] ?? "")
                }
            default: continue
            }
        }
        read.entries.sort { $0.seq < $1.seq }
        return read
    }

    /// The script that writes a batch (`rows`, whose ids run from `first`) through `livestate_doc_write_v1`,
    /// taking the claims of the entries `claims`, and commits.
    static func writeAndCommit(_ rows: [BatchRow], first: Int64, claims: [Int64], numbering: Bool) -> String {
        """
        SELECT livestate_doc_write_v1(\(literal(batch(rows)))::json, \(first), '\(channel)', \
        '\(array(claims))'::bigint[], \(numbering));
        COMMIT
        """
    }

    /// The statement that commits a batch planned without reading (`rows`, whose ids run from `first`, taking the
    /// claims of the entries `claims`) through `livestate_doc_write_unread_v2`, in a transaction of its own: no
    /// rows when it committed; when the server's view was not the database's under the writers' lock (an entry
    /// after `after`, a write under one of `keys`, the next id not `first`, or entries retention deleted), it
    /// writes nothing and answers what `lockAndRead` would have read (`batchRead`).
    static func tryCommit(
        _ rows: [BatchRow], after: Int64, keys: [String], first: Int64, claims: [Int64], numbering: Bool
    ) -> String {
        """
        SELECT * FROM livestate_doc_write_unread_v2(\(after), \(literal(json([keys])))::json, \(literal(batch(rows)))::json, \(first), \
        '\(channel)', '\(array(claims))'::bigint[], \(numbering))
        """
    }

    /// `text` as a dollar-quoted literal, byte for byte (no escaping), with a tag `text` does not hold.
    static func literal(_ text: String) -> String {
        var tag = "$v$"
        var number = 0
        while text.contains(tag) {
            number += 1
            tag = "$v\(number)$"
        }
        return tag + text + tag
    }

    /// The rows of `writes`' changes, with the ids from `first` on, and the ids of the first entries of the
    /// writes that take their download claim.
    static func rows(_ writes: [JournalWrite], first: Int64) -> (rows: [BatchRow], seqs: [Int64], claims: [Int64]) {
        var rows: [BatchRow] = []
        var claims: [Int64] = []
        for write in writes {
            if write.claim, !write.changes.isEmpty { claims.append(first + Int64(rows.count)) }
            for (index, change) in write.changes.enumerated() {
                let key = index == 0 ? write.key : nil
                rows.append((change.collection, change.key, first + Int64(rows.count), change.document, key))
            }
        }
        return (rows, rows.map(\.number), claims)
    }

    /// A batch of `writes` committed with no one else writing since this server's last: the next batch may be
    /// planned without reading, and expects the id `next`.
    func committed(_ writes: [JournalWrite], next: Int64) {
        tally(writes)
        expectedID.withLock { $0 = next }
    }

    /// Counts a committed batch's `writes` (the seeds': their todo writes) for the line `stop` logs.
    func tally(_ writes: [JournalWrite]) {
        let counted = writes.filter { write in
            guard let first = write.changes.first else { return false }
            return dataSet == .file || first.collection == "todos"
        }.count
        guard counted > 0 else { return }
        committedWrites.withLock { tally in
            tally.writes += counted
            tally.commits += 1
            tally.largest = max(tally.largest, counted)
        }
    }

    /// The writes a journal's batches committed, in how many commits, and the most in one; and how its batches
    /// went in: at once on which attempt, or under the writers' lock, and its catch-ups' reads.
    package struct BatchTally: Sendable, Equatable {
        package var writes = 0
        package var commits = 0
        package var largest = 0
        /// Batches committed at once, by attempt (the first, second, … of `optimisticTries`).
        package var atOnce = Array(repeating: 0, count: PostgresDocumentJournal.optimisticTries)
        /// Attempts at once that found the database moved on (each answered what the lock's read would have).
        package var moved = 0
        /// Batches planned under the lock after `optimisticTries` attempts found the database moved on.
        package var lockedAfterTries = 0
        /// Batches planned under the lock from the start: the next id unknown (the first batch, or one after a
        /// failure) or a plan that writes nothing (a checkpoint's).
        package var lockedAtFirst = 0
        /// Catch-up reads (`committed(after:limit:)`), and how many found no entry.
        package var catchUps = 0
        package var emptyCatchUps = 0
        /// Catch-ups that skipped their read: nothing announced after the entry they start from
        /// (`announcesNothing`).
        package var skippedCatchUps = 0

        /// The line `stop` logs, with `noun` for what `writes` counts.
        func line(_ noun: String) -> String {
            "\(writes) \(noun) in \(commits) commits (largest batch \(largest)); batches at once by attempt "
                + "\(atOnce.map(String.init).joined(separator: "/")), \(moved) attempts found the database moved on, "
                + "\(lockedAfterTries) under the lock after \(atOnce.count) attempts, \(lockedAtFirst) under the lock "
                + "from the start; \(catchUps) catch-up reads (\(emptyCatchUps) found nothing), \(skippedCatchUps) not needed"
        }
    }

    /// How this journal's batches went in so far (`BatchTally`).
    package var batchTally: BatchTally { committedWrites.withLock { $0 } }

    /// Adds to the tally (not the writes: `tally(_:)`).
    func count(_ change: (inout BatchTally) -> Void) { committedWrites.withLock { change(&$0) } }
}
