import Domain
import Support

/// The statements of the data file's journal on PostgreSQL, and the batch parameter they read.
extension PostgresDocumentJournal {
    /// The newest `$1` entries (the start markers left out), newest first, with their items before them, as
    /// long as the items of the newer ones take less than `$2` bytes: 1 MiB items would otherwise make a start
    /// read gigabytes.
    static let newestEntries = """
        SELECT seq, resource, key, body, before FROM (
            SELECT newest.*, sum(size) OVER (ORDER BY seq DESC) - size AS newer FROM (
                SELECT seq, resource, key, body, before,
                    coalesce(octet_length(body), 0) + coalesce(octet_length(before), 0) AS size
                FROM livestate_entries WHERE resource <> '' ORDER BY seq DESC LIMIT $1::int
            ) newest
        ) bounded WHERE newer < $2::bigint ORDER BY seq DESC
        """

    /// The entries after `$1` (the start markers left out), oldest first, at most `$2`, each with where
    /// retention's deletions end; with no entry, one row of that alone.
    static let entriesAfter = """
        WITH pruned AS (SELECT coalesce(max(below), 0) AS below FROM livestate_doc_pruned)
        SELECT e.seq, e.resource, e.key, e.body, pruned.below FROM pruned LEFT JOIN LATERAL (
            SELECT seq, resource, key, body FROM livestate_entries
            WHERE seq > $1::bigint AND resource <> '' ORDER BY seq LIMIT $2::int
        ) e ON true ORDER BY e.seq
        """

    /// The first entries of the writes committed under the keys of `$1` (a JSON array of one array of keys).
    static let keyedEntries = """
        SELECT seq, resource, key, body, write_key, write_request FROM livestate_entries
        WHERE write_key IN (SELECT json_array_elements_text($1::json -> 0))
        """

    /// `keyedEntries`' rows, by key.
    static func keyed(_ rows: PostgresRows) -> [String: KeyedEntry] {
        var found: [String: KeyedEntry] = [:]
        for row in rows.rows.indices {
            guard let entry = entry(rows, row), let key = rows.rows[row][4] else { continue }
            found[key] = KeyedEntry(entry: entry, request: rows.rows[row][5] ?? "")
        }
        return found
    }

    /// Retention: one server at a time (the others skip their turn) deletes all but the newest `keep`
    /// entries, under the writers' lock (so no batch reads the entries while they go), and records where the
    /// deletions end.
    static func pruneStatement(keep: Int64) -> String {
        """
        WITH lock AS (SELECT pg_try_advisory_xact_lock(\(writeLock)) AS held),
        horizon AS (
            SELECT max(seq) - \(keep) + 1 AS below FROM livestate_entries, lock WHERE lock.held GROUP BY lock.held
        ),
        gone AS (DELETE FROM livestate_entries USING horizon WHERE seq < horizon.below RETURNING seq)
        INSERT INTO livestate_doc_pruned (below) SELECT max(seq) + 1 FROM gone HAVING count(*) > 0
        ON CONFLICT (only_row) DO UPDATE SET below = greatest(livestate_doc_pruned.below, excluded.below)
        """
    }

    /// Keeps each collection's largest integer id among the rows of `rows` (columns `resource`, `key`) in
    /// `livestate_doc_item_ids` (the seeds' data set), where it stays when the item is deleted: the seeds'
    /// todos never number a new one with a deleted one's id.
    static func largestIDs(of rows: String) -> String {
        let integer = "key ~ '^-?[0-9]{1,18}$'"
        return """
            INSERT INTO livestate_doc_item_ids (resource, last)
            SELECT resource, max(CASE WHEN \(integer) THEN key::bigint END) FROM \(rows) WHERE \(integer)
            GROUP BY resource
            ON CONFLICT (resource) DO UPDATE SET last = greatest(livestate_doc_item_ids.last, excluded.last)
            """
    }

    /// The tables (no notice for those that exist, which libpq would print on the log). A database of an
    /// older server kept its entries in `livestate_doc_entries`, without the key and `before` columns at
    /// first: they are added and the table renamed.
    static let documentTables = """
        CREATE TABLE IF NOT EXISTS livestate_doc_resources (
            name TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            position INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS livestate_doc_items (
            resource TEXT NOT NULL,
            key TEXT NOT NULL,
            place BIGINT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (resource, key)
        );
        CREATE INDEX IF NOT EXISTS livestate_doc_items_place ON livestate_doc_items (resource, place);
        DO $$ BEGIN
            IF to_regclass('livestate_doc_entries') IS NOT NULL THEN
                ALTER TABLE livestate_doc_entries ADD COLUMN IF NOT EXISTS write_key TEXT;
                ALTER TABLE livestate_doc_entries ADD COLUMN IF NOT EXISTS write_request TEXT;
                ALTER TABLE livestate_doc_entries ADD COLUMN IF NOT EXISTS before TEXT;
                DROP INDEX IF EXISTS livestate_doc_entries_write_key;
                ALTER TABLE livestate_doc_entries RENAME TO livestate_entries;
            END IF;
        END $$;
        \(entriesTable)
        CREATE TABLE IF NOT EXISTS livestate_doc_pruned (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            below BIGINT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS livestate_doc_seed (
            only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            source TEXT NOT NULL,
            seeded_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        """

    /// The entries of `entriesAfter`'s rows, and where retention's deletions end.
    static func records(_ rows: PostgresRows) -> (entries: [JournalEntry], prunedBelow: Int64?) {
        let entries = rows.rows.indices.compactMap { entry(rows, $0) }
        return (entries, rows.rows.isEmpty ? nil : rows.integer(0, 4))
    }

    /// `rows` as a JSON array of arrays of strings (nil: null), the parameter `json_array_elements` reads.
    static func json(_ rows: [[String?]]) -> String {
        (try? JSONCoding.text(rows)) ?? "[]"
    }

    /// One row of a batch parameter: a resource, an item's id text, a number (a place or a journal id), the
    /// item's compact JSON (nil: deleted), and the key of the write whose first entry it is.
    typealias BatchRow = (resource: String, key: String, number: Int64, body: String?, writeKey: WriteKey?)

    /// `rows` as the JSON array `json_array_elements` reads, `[[resource, key, number, item], …]`, a keyed
    /// entry's row with its key and request after them. The items go in as JSON values, not as strings:
    /// PostgreSQL's `json` keeps a value's text as given, so `(e->3)::text` is the item byte for byte, and
    /// no item is escaped here and unescaped there.
    static func batch(_ rows: [BatchRow]) -> String {
        var text = "["
        for (index, row) in rows.enumerated() {
            if index > 0 { text += "," }
            let (resource, key) = (JSONCoding.quoted(row.resource), JSONCoding.quoted(row.key))
            text += "[\(resource),\(key),\(row.number),\(row.body ?? "null")"
            if let write = row.writeKey {
                text += ",\(JSONCoding.quoted(write.key)),\(JSONCoding.quoted(write.request))"
            }
            text += "]"
        }
        return text + "]"
    }

    /// The journal's entries, `livestate_entries`: one row per committed change, as `JournalChange` says it.
    ///
    /// - `seq`: the entry's id, commit order (the table's own sequence, taken under `writeLock`); event id
    ///   `seq × 65536`;
    /// - `resource`, `key`, `body`: the resource, the item's id text (`''` for a singular resource) and the
    ///   item after the change (NULL: deleted);
    /// - `before`: the item before the change as `[place,item]`, or `null` when there was none: a restart
    ///   rebuilds the state before its newest entries backwards from it (`DocumentRewind`), to make their events
    ///   again; NULL where it is not known (written by an older server);
    /// - `write_key`, `write_request`: the `Idempotency-Key` the write was committed under and its request
    ///   (`POST /posts`; the seeds' topic), unique, kept as long as the entry.
    ///
    /// The key index is made only where it is missing: `CREATE INDEX IF NOT EXISTS` would lock the table first,
    /// and so queue a starting server, and every write behind it, after any open write transaction.
    static let entriesTable = """
        CREATE TABLE IF NOT EXISTS livestate_entries (
            seq BIGSERIAL PRIMARY KEY,
            resource TEXT NOT NULL,
            key TEXT NOT NULL,
            body TEXT,
            before TEXT,
            write_key TEXT,
            write_request TEXT,
            committed_at TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        DO $$ BEGIN
            IF to_regclass('livestate_entries_write_key') IS NULL THEN
                CREATE UNIQUE INDEX livestate_entries_write_key ON livestate_entries (write_key)
                    WHERE write_key IS NOT NULL;
            END IF;
        END $$;
        """

    /// The SQLSTATE of a database that holds the other data set (`DataSet`): both would read the same entries.
    static let otherDataSetState = "LSV02"

    /// The entry of the row `index` of `rows`, whose columns from `first` on are `seq, resource, key, body`;
    /// nil when one of the first three is missing.
    static func entry(_ rows: PostgresRows, _ index: Int, from first: Int = 0) -> JournalEntry? {
        let row = rows.rows[index]
        guard row.count > first + 3, let seq = rows.integer(index, first), let resource = row[first + 1],
            let key = row[first + 2]
        else {
            return nil
        }
        return JournalEntry(seq: seq, change: JournalChange(resource: resource, key: key, body: row[first + 3]))
    }
}
