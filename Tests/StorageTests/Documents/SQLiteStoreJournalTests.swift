import Domain
import Foundation
import Synchronization
import Testing

@testable import Storage

/// `SQLiteDocumentJournal` holding its items (`Holding.items`), a store with no data file, on real files: a new
/// store, the seeds' files of every earlier version migrating in place, and the two kinds of store refusing
/// each other's file.
@Suite final class SQLiteStoreJournalTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("store.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-store-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The seeds' file a LiveState from before the steps were recorded wrote (user_version 4, see its README).
    private static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("integration/hardening/fixtures/migrations/seeds-v4.sqlite")

    private static func todo(_ id: Int, _ title: String, _ completed: Bool = false) -> (key: String, body: String) {
        let change = JournalChange(TodoChange.upsert(Todo(id: id, title: title, completed: completed)))
        return (change.key, change.document ?? "")
    }

    private static func rows(_ journal: SQLiteDocumentJournal) throws -> [String: DocumentRows] {
        Dictionary(uniqueKeysWithValues: try journal.current().resources.map { ($0.name, $0) })
    }

    private static func same(_ rows: DocumentRows?, _ items: [(key: String, body: String)]) -> Bool {
        guard let rows, rows.items.count == items.count else { return false }
        return zip(rows.items, items).allSatisfy { $0.key == $1.key && $0.body == $1.body }
    }

    /// A new store starts with the seed's todo, and keeps each item in step with its entries, each entry with
    /// the item before it; deleted ids are never handed out again; all of it survives a reopen.
    @Test func aNewStoreKeepsItsItemsBesideItsEntries() throws {
        let seqs: [Int64]
        do {
            let journal = try SQLiteDocumentJournal(path: path, holding: .items)
            let start = try Self.rows(journal)
            #expect(Self.same(start["todos"], [Self.todo(1, "Buy Milk")]) && start["todos"]?.largestID == 1)
            seqs = try journal.commit([
                JournalWrite(changes: [JournalChange(TodoChange.upsert(Todo(id: 2, title: "Walk the dog")))]),
                JournalWrite(changes: [
                    JournalChange(TodoChange.upsert(Todo(id: 1, title: "Buy Milk", completed: true)))
                ]),
                JournalWrite(changes: [JournalChange(TodoChange.delete(id: 2))]),
                JournalWrite(changes: [JournalChange.input(topic: "selection", json: #"{"url":"a"}"#)]),
                JournalWrite(changes: [JournalChange.input(topic: "selection", json: #"{"url":"b"}"#)]),
            ])
            #expect(seqs.count == 5 && seqs[0] > journal.startSeq)
        }
        let reopened = try SQLiteDocumentJournal(path: path, holding: .items)
        let current = try reopened.current()
        #expect(current.seq >= seqs[4])
        let rows = Dictionary(uniqueKeysWithValues: current.resources.map { ($0.name, $0) })
        #expect(Self.same(rows["todos"], [Self.todo(1, "Buy Milk", true)]) && rows["todos"]?.largestID == 2)
        #expect(rows["selection"]?.kind == .singular && Self.same(rows["selection"], [("", #"{"url":"b"}"#)]))
        let befores = try reopened.connection.withLock { connection in
            try connection.query(
                "SELECT before FROM livestate_entries WHERE seq >= ? AND resource <> '' ORDER BY seq",
                [.integer(seqs[0])]
            )
            .map { $0[0].text }
        }
        #expect(
            befores == [nil, Self.todo(1, "Buy Milk").body, Self.todo(2, "Walk the dog").body, nil, #"{"url":"a"}"#])
    }

    /// A singular resource's value is kept once, in its newest entry, which its item names: retention keeps
    /// that entry however many entries come after it, and a restart's rewind reads none past the retention.
    @Test func aSingularValueIsKeptOnceInItsNewestEntry() throws {
        let image = JournalChange.input(topic: "image", json: #"{"url":"big","data":"AAAA"}"#)
        let first: [Int64]
        do {
            let journal = try SQLiteDocumentJournal(path: path, retention: 3, holding: .items)
            first = try journal.commit([JournalWrite(changes: [image])])
            for id in 2...6 {
                _ = try journal.commit([
                    JournalWrite(changes: [JournalChange(TodoChange.upsert(Todo(id: id, title: "todo \(id)")))])
                ])
            }
            let held = try journal.connection.withLock { connection in
                try connection.query("SELECT body, entry FROM livestate_items WHERE resource = 'image'").first
            }
            #expect(held?[0].text == "" && held?[1].integer == first[0])
        }
        let reopened = try SQLiteDocumentJournal(path: path, retention: 3, holding: .items)
        #expect(Self.same(try Self.rows(reopened)["image"], [("", image.document ?? "")]))
        #expect(try reopened.newest(of: "image")?.seq == first[0])
        let recent = try reopened.recent(limit: 100, bytes: 1 << 20)
        #expect(!recent.isEmpty && recent.allSatisfy { $0.change.collection == "todos" })
    }

    /// The seeds' file of user_version 4 an older LiveState wrote: its todos, the todos' id counter, its entry
    /// ids and its keys carry over, and the next entry follows the newest.
    @Test func theSeedsFileOfVersion4MigratesInPlace() throws {
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let journal = try SQLiteDocumentJournal(path: path, holding: .items)
        let rows = try Self.rows(journal)
        #expect(
            Self.same(
                rows["todos"],
                [
                    Self.todo(1, "Buy Milk"), Self.todo(2, "Walk the dog", true), Self.todo(3, "Ünïcode ✓ title"),
                    Self.todo(5, "Keyed write"),
                ]))
        #expect(rows["todos"]?.largestID == 5)
        let keyed = try journal.keyed(["fixture-key-1"])
        #expect(keyed["fixture-key-1"]?.entry.seq == 27_413_222_504 && keyed["fixture-key-1"]?.request == "todos")
        #expect(keyed["fixture-key-1"]?.entry.change.document == Self.todo(5, "Keyed write").body)
        let seqs = try journal.commit([
            JournalWrite(changes: [JournalChange(TodoChange.upsert(Todo(id: 6, title: "after the upgrade")))])
        ])
        #expect(seqs.count == 1 && seqs[0] > 27_413_222_506)
        let applied = try journal.connection.withLock { connection in
            (
                try connection.query("SELECT name FROM livestate_migrations ORDER BY rowid").compactMap { $0[0].text },
                try connection.query("PRAGMA user_version").first?.first?.integer,
                try connection.query("SELECT 1 FROM sqlite_master WHERE name = 'todos' AND type = 'table'").count
            )
        }
        #expect(applied.0 == ["todos", "journal", "journal write keys", "entries", "items", "items by entry"])
        #expect(applied.1 == 5 && applied.2 == 0)
    }

    /// Seeds' files of user_version 1, 2 and 3 (made by the first steps, the table of applied steps then
    /// dropped) keep their todos, and an input's newest entry becomes its resource.
    @Test(arguments: [1, 2, 3]) func aSeedsFileOfAnOlderVersionMigratesInPlace(version: Int) throws {
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
                    INSERT INTO livestate_events (id, topic, change) VALUES (30000000000, 'frameworks', '{"name":"old"}');
                    INSERT INTO livestate_events (id, topic, change) VALUES (30000000001, 'frameworks', '{"name":"new"}');
                    """)
            }
        }
        let journal = try SQLiteDocumentJournal(path: path, holding: .items)
        let rows = try Self.rows(journal)
        #expect(Self.same(rows["todos"], [Self.todo(1, "Buy Milk"), Self.todo(2, "from version \(version)", true)]))
        #expect(rows["frameworks"].map { Self.same($0, [("", #"{"name":"new"}"#)]) } ?? (version < 2))
        let seqs = try journal.commit([JournalWrite(changes: [JournalChange(TodoChange.delete(id: 2))])])
        if version >= 2 { #expect(seqs[0] > 30_000_000_001) }
    }

    /// Retention deletes old entries; the items stay.
    @Test func retentionKeepsTheItems() throws {
        let journal = try SQLiteDocumentJournal(path: path, retention: 10, holding: .items)
        for id in 2..<1200 {
            _ = try journal.commit([
                JournalWrite(changes: [JournalChange(TodoChange.upsert(Todo(id: id, title: "task \(id)")))])
            ])
        }
        #expect(try journal.entries(after: 0).count == 10)
        #expect(try Self.rows(journal)["todos"]?.items.count == 1199)
    }

    /// A data file's journal refuses a store's file and a store a data file's journal; a LiveState that knows
    /// only the seeds' four steps refuses a migrated store, naming the step.
    @Test func eachKindOfFileIsRefusedByTheOthers() throws {
        do { _ = try SQLiteDocumentJournal(path: path, holding: .items) }
        #expect { _ = try SQLiteDocumentJournal(path: path) } throws: { "\($0)".contains("seeds' data") }
        #expect {
            try SQLiteSchema.migrate(try SQLiteConnection(path: path))
        } throws: { "\($0)".contains("newer LiveState") && "\($0)".contains("\"items\"") }
        let other = directory.appendingPathComponent("db.json.livestate").path
        do { _ = try SQLiteDocumentJournal(path: other) }
        #expect { _ = try SQLiteDocumentJournal(path: other, holding: .items) } throws: {
            "\($0)".contains("data file's journal")
        }
    }
}
