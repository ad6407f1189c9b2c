/// The schema of one kind of SQLite file (the seeds' file, a data file's journal) as named steps, applied in
/// order, each in a transaction of its own that also records its name in `livestate_migrations`, as GRDB's
/// `DatabaseMigrator` does:
///
/// - a new file gets every step, in order;
/// - a file that has the table gets the steps it does not name yet (a step that throws is rolled back and
///   stops the start; the steps before it stay applied and are not run again);
/// - a file from before the table is recognised once by `older`, which reads its old marker (the seeds'
///   `user_version`, a data file journal's tables) and answers how many of the first steps it already has;
///   they are recorded without being run, in the transaction that makes the table;
/// - a file whose table names a step this binary does not know was written by a newer LiveState: it is
///   refused before anything in it changes, with one line naming the step.
///
/// `livestate_migrations` holds the name of each applied step and when it was applied (UTC).
///
/// ```swift
/// let migrations = SQLiteMigrations(steps: [("todos", { try $0.execute("CREATE TABLE todos(id INTEGER)") })])
/// try migrations.migrate(connection)   // once per start, before the file is used
/// ```
struct SQLiteMigrations: Sendable {
    /// One named step: `apply` changes the file inside the step's transaction.
    typealias Step = (name: String, apply: @Sendable (SQLiteConnection) throws(JournalError) -> Void)

    /// The steps, oldest first. A step is never renamed or removed once released: a file names it.
    let steps: [Step]
    /// How many of the first steps a file from before `livestate_migrations` already has (0 for a new file);
    /// a file it cannot place throws.
    let older: @Sendable (SQLiteConnection) throws(JournalError) -> Int

    /// The table of applied steps.
    static let table = "livestate_migrations"

    init(
        steps: [Step],
        older: @escaping @Sendable (SQLiteConnection) throws(JournalError) -> Int = { _ throws(JournalError) in 0 }
    ) {
        self.steps = steps
        self.older = older
    }

    /// Brings the file of `connection` up to the last step.
    func migrate(_ connection: SQLiteConnection) throws(JournalError) {
        var applied = try transaction(connection) { () throws(JournalError) -> Set<String> in
            try recognise(connection)
        }
        for step in steps where !applied.contains(step.name) {
            try transaction(connection) { () throws(JournalError) in
                try step.apply(connection)
                try record(step.name, connection)
            }
            applied.insert(step.name)
        }
    }

    /// The names of the steps the file has: from the table, or, for a file without it, from its old marker
    /// (the table is made then). A name no step has refuses the file.
    private func recognise(_ connection: SQLiteConnection) throws(JournalError) -> Set<String> {
        let exists = try connection.query(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '\(Self.table)'")
        guard exists.isEmpty else {
            let names = try connection.query("SELECT name FROM \(Self.table) ORDER BY rowid")
                .compactMap { $0.first?.text }
            let known = Set(steps.map(\.name))
            if let unknown = names.first(where: { !known.contains($0) }) {
                throw JournalError.failed(
                    "the file was written by a newer LiveState (it has the schema step \"\(unknown)\","
                        + " which this one does not know); nothing was changed")
            }
            return Set(names)
        }
        let had = try older(connection)
        try connection.execute(
            """
            CREATE TABLE \(Self.table)(
                name TEXT PRIMARY KEY NOT NULL,
                applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
            """)
        for step in steps.prefix(had) { try record(step.name, connection) }
        return Set(steps.prefix(had).map(\.name))
    }

    private func record(_ name: String, _ connection: SQLiteConnection) throws(JournalError) {
        try connection.query("INSERT INTO \(Self.table)(name) VALUES (?)", [.text(name)])
    }

    private func transaction<T>(
        _ connection: SQLiteConnection, _ body: () throws(JournalError) -> T
    ) throws(JournalError) -> T {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(JournalError) {
            let result = try body()
            try connection.execute("COMMIT")
            return result
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
