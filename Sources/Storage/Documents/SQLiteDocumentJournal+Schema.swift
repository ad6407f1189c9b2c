/// The tables of a data file's journal, as the steps of `SQLiteMigrations` (one transaction each, recorded in
/// `livestate_migrations`):
///
/// - `file mark` (1): `livestate_doc_file`, the JSON file's mark (`FileMark`) without its top;
/// - `entries` (2): `livestate_entries` (`SQLiteEntries`). A journal of an older server kept its entries in
///   `livestate_doc_entries`, without the `write_key`, `write_request` and `before` columns at first: the
///   columns are added and the table renamed; its ids continue (SQLite renames the table's `AUTOINCREMENT`
///   counter with it);
/// - `file mark top` (3): `livestate_doc_file.top`, the newest entry the file might show, which a start once
///   read (empty in the marks of older servers);
/// - `saved events and checkpoints` (4): `livestate_doc_events` and `livestate_doc_events_at` (+Events),
///   `livestate_checkpoints` (+Checkpoints), which older servers made on first use (kept if there);
/// - `items before entries` (5): `livestate_doc_file.floor`, the newest entry no restart undoes (+Rewind). From
///   this step on each entry keeps the item before it; the entries of an older server have none, so the floor
///   of a journal this step migrates is its newest entry (and the events its clean stop saved are served once);
/// - `file mark without top` (6): `livestate_doc_file.top` dropped: a start puts back every entry after the
///   mark's `seq` and rewinds by the items before them, so nothing reads it;
/// - `pending file mark` (7): `livestate_doc_file.pending_seq` and `pending_hash`, the mark of the file a
///   write-back is about to rename into place (`markPendingFile`), which a start takes when the server died
///   between that rename and the mark.
///
/// A journal from before the steps were recorded had no marker: its tables say which of the first three
/// steps it has (`olderSteps`, read once).
extension SQLiteDocumentJournal {
    /// The steps, oldest first.
    static let migrations = SQLiteMigrations(
        steps: [
            ("file mark", createMark),
            ("entries", createEntries),
            ("file mark top", addMarkTop),
            ("saved events and checkpoints", createEventsAndCheckpoints),
            ("items before entries", addRewindFloor),
            ("file mark without top", dropMarkTop),
            ("pending file mark", addPendingMark),
        ],
        older: olderSteps)

    /// How many of the first steps a journal from before `livestate_migrations` has: none for a new file;
    /// the mark; the entries in `livestate_entries`; the mark's top.
    private static func olderSteps(_ connection: SQLiteConnection) throws(JournalError) -> Int {
        let tables = Set(
            try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.first?.text })
        guard tables.contains("livestate_doc_file") else { return 0 }
        guard tables.contains("livestate_entries"), !tables.contains("livestate_doc_entries") else { return 1 }
        return try columns(of: "livestate_doc_file", connection).contains("top") ? 3 : 2
    }

    private static func createMark(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            CREATE TABLE livestate_doc_file(
                id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
            """)
    }

    private static func createEntries(_ connection: SQLiteConnection) throws(JournalError) {
        let older = try connection.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'livestate_doc_entries'")
        if !older.isEmpty {
            if !(try columns(of: "livestate_doc_entries", connection).contains("write_key")) {
                try connection.execute(
                    """
                    ALTER TABLE livestate_doc_entries ADD COLUMN write_key TEXT;
                    ALTER TABLE livestate_doc_entries ADD COLUMN write_request TEXT;
                    """)
            }
            try connection.execute(
                """
                DROP INDEX IF EXISTS livestate_doc_entries_write_key;
                ALTER TABLE livestate_doc_entries ADD COLUMN before TEXT;
                ALTER TABLE livestate_doc_entries RENAME TO livestate_entries;
                """)
        }
        try SQLiteEntries.create(connection)
    }

    private static func addMarkTop(_ connection: SQLiteConnection) throws(JournalError) {
        // NB: a mark may have its top already while its entries were still in `livestate_doc_entries`.
        guard !(try columns(of: "livestate_doc_file", connection).contains("top")) else { return }
        try connection.execute("ALTER TABLE livestate_doc_file ADD COLUMN top INTEGER")
    }

    private static func createEventsAndCheckpoints(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS livestate_doc_events(
                id INTEGER PRIMARY KEY, topic TEXT NOT NULL, frame TEXT NOT NULL, diff TEXT);
            CREATE TABLE IF NOT EXISTS livestate_doc_events_at(
                only_row INTEGER PRIMARY KEY CHECK (only_row = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS livestate_checkpoints(
                id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, seq INTEGER NOT NULL,
                created_at TEXT NOT NULL, content TEXT NOT NULL);
            """)
    }

    private static func addRewindFloor(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            ALTER TABLE livestate_doc_file ADD COLUMN floor INTEGER NOT NULL DEFAULT 0;
            UPDATE livestate_doc_file SET floor = (SELECT coalesce(max(seq), 0) FROM livestate_entries);
            """)
    }

    private static func dropMarkTop(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute("ALTER TABLE livestate_doc_file DROP COLUMN top")
    }

    private static func addPendingMark(_ connection: SQLiteConnection) throws(JournalError) {
        try connection.execute(
            """
            ALTER TABLE livestate_doc_file ADD COLUMN pending_seq INTEGER;
            ALTER TABLE livestate_doc_file ADD COLUMN pending_hash TEXT;
            """)
    }

    private static func columns(of table: String, _ connection: SQLiteConnection) throws(JournalError) -> [String] {
        try connection.query("PRAGMA table_info(\(table))").compactMap { $0[1].text }
    }
}
