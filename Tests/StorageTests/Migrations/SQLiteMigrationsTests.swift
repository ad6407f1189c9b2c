import Domain
import Foundation
import Testing

@testable import Storage

/// `SQLiteMigrations` and the seeds' steps (`SQLiteSchema`) against real files in a fresh temporary directory.
@Suite final class SQLiteMigrationsTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("store.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-migrations-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func applied(_ connection: SQLiteConnection) throws -> [String] {
        try connection.query("SELECT name FROM livestate_migrations ORDER BY rowid").compactMap { $0.first?.text }
    }

    private static func tables(_ connection: SQLiteConnection) throws -> [String] {
        try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .compactMap { $0.first?.text }
    }

    /// A step that runs `sql`.
    private static func step(_ name: String, _ sql: String) -> SQLiteMigrations.Step {
        (name, { connection throws(JournalError) in try connection.execute(sql) })
    }

    private static let steps = [
        step("a", "CREATE TABLE a(x INTEGER); INSERT INTO a VALUES (1);"), step("b", "CREATE TABLE b(x INTEGER)"),
    ]

    @Test func aNewFileGetsEveryStepInOrderEachRecordedOnce() throws {
        let connection = try SQLiteConnection(path: path)
        try SQLiteMigrations(steps: Self.steps).migrate(connection)
        try SQLiteMigrations(steps: Self.steps).migrate(connection)
        #expect(try Self.applied(connection) == ["a", "b"])
        #expect(try connection.query("SELECT count(*) FROM a").first?.first?.integer == 1)
    }

    /// A step that throws leaves nothing of itself; the steps before it stay, and the next start runs only it.
    @Test func aFailingStepIsRolledBackAndTheNextStartGoesOnFromIt() throws {
        let connection = try SQLiteConnection(path: path)
        let failing = Self.steps + [Self.step("c", "CREATE TABLE c(x INTEGER); INSERT INTO missing VALUES (1);")]
        #expect(throws: JournalError.self) { try SQLiteMigrations(steps: failing).migrate(connection) }
        #expect(try Self.applied(connection) == ["a", "b"])
        #expect(try !Self.tables(connection).contains("c"))
        let fixed = Self.steps + [Self.step("c", "CREATE TABLE c(x INTEGER)")]
        try SQLiteMigrations(steps: fixed).migrate(connection)
        #expect(try Self.applied(connection) == ["a", "b", "c"])
        #expect(try connection.query("SELECT count(*) FROM a").first?.first?.integer == 1)
    }

    /// A file that names a step this binary does not know is refused with one line, and nothing changes.
    @Test func aFileWithAStepThisBinaryDoesNotKnowIsRefusedUnchanged() throws {
        let connection = try SQLiteConnection(path: path)
        try SQLiteMigrations(steps: Self.steps).migrate(connection)
        try connection.execute("INSERT INTO livestate_migrations(name) VALUES ('from a newer LiveState')")
        let before = try Self.tables(connection)
        let newer = Self.steps + [Self.step("c", "CREATE TABLE c(x INTEGER)")]
        #expect {
            try SQLiteMigrations(steps: newer).migrate(connection)
        } throws: { error in
            let line = "\(error)"
            return line.contains("written by a newer LiveState") && line.contains("\"from a newer LiveState\"")
                && !line.contains("\n")
        }
        #expect(try Self.tables(connection) == before)
        #expect(try Self.applied(connection) == ["a", "b", "from a newer LiveState"])
    }

    /// A file from before the table: the steps its marker says it has are recorded, not run again.
    @Test func aFileFromBeforeTheTableIsRecognisedByItsOlderMarker() throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("CREATE TABLE a(x INTEGER); INSERT INTO a VALUES (7);")
        try SQLiteMigrations(steps: Self.steps, older: { _ throws(JournalError) in 1 }).migrate(connection)
        #expect(try Self.applied(connection) == ["a", "b"])
        #expect(try connection.query("SELECT x FROM a").map { $0.first?.integer } == [7])
    }

    /// Seeds' files of `user_version` 1, 2 and 3 (made by the first steps, the table of applied steps then
    /// dropped: a file as the LiveState of that version left it) keep their todos, entries and keys.
    @Test(arguments: [1, 2, 3]) func aSeedsFileOfAnOlderVersionKeepsItsTodos(version: Int) throws {
        do {
            let older = try SQLiteConnection(path: path)
            let all = SQLiteSchema.migrations(now: Date(timeIntervalSince1970: 1_700_000_000))
            try SQLiteMigrations(steps: Array(all.steps.prefix(version))).migrate(older)
            try older.execute(
                """
                DROP TABLE livestate_migrations;
                INSERT INTO todos (title, completed) VALUES ('from version \(version)', 1);
                """)
            if version >= 2 {
                try older.execute(
                    """
                    INSERT INTO livestate_events (id, topic, change) VALUES (30000000000, 'todos',
                        '{"op":"upsert","todo":{"id":2,"title":"from version \(version)","completed":true},"before":null}');
                    """)
            }
            if version >= 3 {
                try older.execute("UPDATE livestate_events SET write_key = 'k\(version)'")
            }
            #expect(try older.query("PRAGMA user_version").first?.first?.integer == Int64(version))
        }
        let check = try SQLiteConnection(path: path)
        try SQLiteSchema.migrate(check)
        #expect(
            try check.query("SELECT id, title, completed FROM todos ORDER BY id") == [
                [.integer(1), .text("Buy Milk"), .integer(0)],
                [.integer(2), .text("from version \(version)"), .integer(1)],
            ])
        try check.query("INSERT INTO todos (title, completed) VALUES ('after the upgrade', 0)")
        #expect(check.lastInsertRowID == 3)
        #expect(try Self.applied(check) == ["todos", "journal", "journal write keys", "entries"])
        #expect(try check.query("PRAGMA user_version").first?.first?.integer == 4)
        let entries = try check.query("SELECT seq, key, write_key FROM livestate_entries WHERE resource = 'todos'")
        #expect(entries.count == (version >= 2 ? 1 : 0))
        if version >= 2 {
            #expect(entries[0][0].integer == 30_000_000_000 && entries[0][1].text == "2")
            #expect(entries[0][2].text == (version >= 3 ? "k3" : nil))
        }
        // The next entry follows the counter (the store's own steps on the same file: SQLiteStoreJournalTests).
        let next = try SQLiteEntries.takeStartSeq(check)
        #expect(version < 2 || next > 30_000_000_000)
    }

    /// A seeds' file from before the table with a `user_version` above every step's is refused.
    @Test func aSeedsFileOfANewerVersionIsRefused() throws {
        do {
            let newer = try SQLiteConnection(path: path)
            try newer.execute("PRAGMA user_version = 9")
        }
        #expect {
            try SQLiteSchema.migrate(try SQLiteConnection(path: path))
        } throws: { error in
            "\(error)".contains("schema version 9, written by a newer LiveState")
        }
        let check = try SQLiteConnection(path: path)
        #expect(try Self.tables(check).isEmpty)
    }
}
