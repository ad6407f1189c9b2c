import Domain
import Foundation

/// The tables of the seeds' SQLite file, as the steps of `SQLiteMigrations` (one transaction each, recorded in
/// `livestate_migrations`); each also writes its number to `PRAGMA user_version`, the marker of the files from
/// before the steps were recorded (and the one a LiveState from then reads, to refuse a newer file):
///
/// - `todos` (1): `todos`, seeded with `Buy Milk` (seed 004);
/// - `journal` (2): the journal of docs/architecture-instances.md in the same file: `livestate_events` (one
///   row per committed todo change, written in the change's own transaction) and `livestate_counter` (where
///   journal ids come from). A file of version 1 keeps its todos; its counter starts above every
///   clock-based event id the older binary handed out (microseconds since 1970, divided by the 65,536 ids
///   each entry leaves for the events that are not journaled), so a browser's `Last-Event-ID` from before
///   the upgrade compares below every new id;
/// - `journal write keys` (3): `livestate_events.write_key`, the `Idempotency-Key` a write was committed
///   under (NULL without one), unique, so a write sent again with it is answered from its entry; kept as long
///   as its entry. Entries of version 2 have none;
/// - `entries` (4): the entries move into `livestate_entries` (`SQLiteEntries`), the table a data file's
///   journal keeps its entries in too: a todo entry becomes the `todos` collection's item id, the todo after
///   the change (NULL: deleted) and the todo before it; another input's entry its topic and its JSON. Ids,
///   keys and the counter carry over (the next id follows the counter), and the old tables are dropped.
///
/// A file without `livestate_migrations` has the first `user_version` steps. A data file's journal
/// (`db.json.livestate`, which keeps the entries of a JSON file) is refused: the two would share one table
/// of entries. A file written by a newer LiveState (a step this one does not know, or a `user_version` above
/// 4 without the table) is refused: the server does not start, rather than write a file whose newer tables
/// it does not know.
enum SQLiteSchema {
    /// Journal entry `n` is event id `n × journalBlock` (as with PostgreSQL).
    static let journalBlock: Int64 = 65536

    /// Brings the file of `connection` to the last step; a file already there is left as it is.
    static func migrate(_ connection: SQLiteConnection, now: Date = Date()) throws(JournalError) {
        let dataFileMarks = try connection.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'livestate_doc_file'")
        guard dataFileMarks.isEmpty else {
            throw JournalError.failed("the file is a data file's journal; the seeds' data needs a file of its own")
        }
        try migrations(now: now).migrate(connection)
    }

    /// The steps, oldest first (a counter started at `now` for a file that has none).
    static func migrations(now: Date = Date()) -> SQLiteMigrations {
        let counter = firstCounter(now)
        return SQLiteMigrations(
            steps: [
                ("todos", createTodos),
                ("journal", { connection throws(JournalError) in try createJournal(connection, counter: counter) }),
                ("journal write keys", addWriteKeys),
                ("entries", moveEntries),
            ],
            older: olderSteps)
    }

    /// A file from before the steps were recorded has the first `user_version` of them.
    private static func olderSteps(_ connection: SQLiteConnection) throws(JournalError) -> Int {
        let found = Int(try connection.query("PRAGMA user_version").first?.first?.integer ?? 0)
        guard found <= 4 else {
            throw JournalError.failed(
                "the file has schema version \(found), written by a newer LiveState; this one knows versions up to 4")
        }
        return found
    }

    private static func createTodos(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS todos (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                title TEXT NOT NULL,
                completed INTEGER NOT NULL DEFAULT 0
            );
            INSERT INTO todos (title, completed) VALUES ('Buy Milk', 0);
            PRAGMA user_version = 1;
            """)
    }

    private static func createJournal(_ connection: SQLiteConnection, counter: Int64) throws(JournalError) {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS livestate_events (
                id INTEGER PRIMARY KEY,
                topic TEXT NOT NULL,
                change TEXT NOT NULL
            );
            CREATE TABLE IF NOT EXISTS livestate_counter (
                only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
                last_id INTEGER NOT NULL
            );
            """)
        try connection.query(
            """
            INSERT INTO livestate_counter (only_row, last_id)
            SELECT 1, MAX(?, COALESCE((SELECT MAX(id) FROM livestate_events), 0))
            WHERE NOT EXISTS (SELECT 1 FROM livestate_counter)
            """, [.integer(counter)])
        try connection.execute("PRAGMA user_version = 2")
    }

    private static func addWriteKeys(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            ALTER TABLE livestate_events ADD COLUMN write_key TEXT;
            CREATE UNIQUE INDEX livestate_events_write_key ON livestate_events (write_key)
                WHERE write_key IS NOT NULL;
            PRAGMA user_version = 3;
            """)
    }

    /// Version 4: `livestate_events` (a topic and the change's JSON per row; a todo's as
    /// `{"op":"upsert","todo":…,"before":…}` or `{"op":"delete","id":…,"before":…}`) into `livestate_entries`.
    /// A row whose JSON does not parse keeps its topic and no item (no replay reads it as a change).
    private static func moveEntries(_ connection: SQLiteConnection) throws(JournalError) {
        try SQLiteEntries.create(connection)
        try connection.execute(
            """
            INSERT INTO livestate_entries(seq, resource, key, body, before, write_key, write_request)
            SELECT id, topic,
                CASE WHEN topic = 'todos' AND json_valid(change)
                    THEN coalesce(CAST(json_extract(change, '$.todo.id') AS TEXT),
                                  CAST(json_extract(change, '$.id') AS TEXT), '')
                    ELSE '' END,
                CASE WHEN topic <> 'todos' THEN change
                     WHEN json_valid(change) THEN json_extract(change, '$.todo') END,
                CASE WHEN topic = 'todos' AND json_valid(change) THEN json_extract(change, '$.before') END,
                write_key, CASE WHEN write_key IS NOT NULL THEN topic END
            FROM livestate_events ORDER BY id;
            """)
        let last =
            try connection.query(
                """
                SELECT max(coalesce((SELECT last_id FROM livestate_counter), 0),
                           coalesce((SELECT max(seq) FROM livestate_entries), 0))
                """
            ).first?.first?.integer ?? 0
        try SQLiteEntries.continueAfter(last, connection)
        try connection.execute(
            """
            DROP TABLE livestate_events;
            DROP TABLE livestate_counter;
            PRAGMA user_version = 4;
            """)
    }

    /// The counter of a file that has none: above every clock-based id handed out until `now`.
    static func firstCounter(_ now: Date) -> Int64 {
        Int64(max(0, now.timeIntervalSince1970 * 1_000_000)) / journalBlock + 1
    }
}
