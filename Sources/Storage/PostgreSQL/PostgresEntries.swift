import Domain

/// The journal's entries in PostgreSQL, one table for the seeds' journal (`PostgresJournal`) and a data
/// file's (`PostgresDocumentJournal`) alike, as `SQLiteEntries` is on SQLite: one row per committed change,
/// as `JournalChange` says it.
///
/// `livestate_entries`:
/// - `seq`: the entry's id, commit order (the seeds take it from `livestate_counter`, a data file's journal
///   from the table's own sequence, each under its writers' lock); event id `seq × 65536`;
/// - `resource`, `key`, `body`: the collection, the item's id text (`''` for a resource as a whole) and the
///   document after the change (NULL: deleted);
/// - `before`: the item before the change (the seeds' todos; a data file's item as `[place,item]`, or `null`
///   when there was none): a restart rebuilds the state before its newest entries backwards from it, to make
///   their events again; NULL where an older server did not keep it;
/// - `write_key`, `write_request`: the `Idempotency-Key` the write was committed under and its request
///   (`POST /posts`; a seed input's topic), unique, kept as long as the entry.
///
/// One database holds one data set: the seeds' schema refuses a database a data file filled, and a data
/// file's schema one the seeds use (`otherDataSetState`), since both would read the same entries.
enum PostgresEntries {
    /// The table and its key index, for a database that has neither. The index is made only where it is
    /// missing: `CREATE INDEX IF NOT EXISTS` would lock the table first, and so queue a starting server, and
    /// every write behind it, after any open write transaction.
    static let table = """
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

    /// The SQLSTATE a schema script raises on a database that holds the other data set.
    static let otherDataSetState = "LSV02"

    /// The entry of the row `index` of `rows`, whose first columns are `seq, resource, key, body`; nil when one
    /// of the first three is missing.
    static func entry(_ rows: PostgresRows, _ index: Int) -> JournalEntry? {
        let row = rows.rows[index]
        guard row.count > 3, let seq = rows.integer(index, 0), let resource = row[1], let key = row[2] else {
            return nil
        }
        return JournalEntry(seq: seq, change: JournalChange(resource: resource, key: key, body: row[3]))
    }
}
