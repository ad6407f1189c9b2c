import Domain
import Foundation
import Synchronization
import Testing

@testable import Storage

/// The journal in the SQLite file (`livestate_events`): one entry per committed write, in the write's own
/// transaction, ids in commit order above the old clock ids, bounded by retention, and enough in each
/// entry to rebuild the lists of a previous run.
@Suite final class SQLiteJournalTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-journal-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func eachWriteIsOneEntryWithTheIdTheCommitHandlerHeard() throws {
        let store = try SQLiteTodoStore(path: path)
        let heard = Heard()
        store.onCommit { heard.append($0) }
        let walk = try store.insert(title: "Walk the dog", completed: false)
        #expect(try store.update(Todo(id: walk.id, title: "Walk the cat", completed: true)))
        #expect(try store.delete(id: 1))
        // Writes that change nothing write no entry and take no id.
        #expect(try !store.update(Todo(id: 99, title: "Nobody", completed: false)))
        #expect(try !store.delete(id: 99))
        let entries = try store.recentEntries(limit: 10)
        #expect(entries.map(\.seq) == heard.values.reversed())
        #expect(heard.values == [store.startSeq + 1, store.startSeq + 2, store.startSeq + 3])
        #expect(
            entries.reversed().map(\.change) == [
                .upsert(walk), .upsert(Todo(id: walk.id, title: "Walk the cat", completed: true)), .delete(id: 1),
            ])
        #expect(entries.reversed().map(\.before) == [nil, walk, Todo(id: 1, title: "Buy Milk")])
    }

    @Test func theListsOfEveryEntryAreRebuiltFromTheCurrentOneBackwards() throws {
        let store = try SQLiteTodoStore(path: path)
        var lists = [try store.all()]
        let walk = try store.insert(title: "Walk the dog", completed: false)
        lists.append(try store.all())
        _ = try store.insert(title: "Water the plants", completed: true)
        lists.append(try store.all())
        _ = try store.update(Todo(id: walk.id, title: "Walk the dog twice", completed: true))
        lists.append(try store.all())
        _ = try store.delete(id: 1)
        lists.append(try store.all())
        var after = try store.all()
        var rebuilt = [after]
        for entry in try store.recentEntries(limit: 10) {
            after = try #require(entry.reverted(after))
            rebuilt.insert(after, at: 0)
        }
        #expect(rebuilt == lists)
    }

    @Test func aRestartTakesANewBlockAboveEveryIdBefore() throws {
        let first = try SQLiteTodoStore(path: path).startSeq
        // NB: the old binary's ids were microseconds since 1970; entry n is event id n × 65536.
        #expect(first * 65536 > Int64(Date().timeIntervalSince1970 * 1_000_000) - 60_000_000)
        let second: Int64
        do {
            let store = try reopening { try SQLiteTodoStore(path: path) }
            _ = try store.insert(title: "Walk the dog", completed: false)
            second = store.startSeq
        }
        let third = try reopening { try SQLiteTodoStore(path: path) }
        #expect(second > first)
        #expect(third.startSeq > second + 1)
        #expect(try third.recentEntries(limit: 10).map(\.seq) == [second + 1])
    }

    @Test func aFileOfTheOldSchemaKeepsItsTodosAndStartsAboveTheClock() throws {
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute(
                """
                CREATE TABLE todos (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
                                    completed INTEGER NOT NULL DEFAULT 0);
                INSERT INTO todos (title, completed) VALUES ('Buy Milk', 0), ('Kept', 1);
                PRAGMA user_version = 1;
                """)
        }
        let clock = Int64(Date().timeIntervalSince1970 * 1_000_000)
        let store = try reopening { try SQLiteTodoStore(path: path) }
        #expect(try store.all().map(\.title) == ["Buy Milk", "Kept"])
        #expect(store.startSeq * 65536 > clock)
        #expect(try store.recentEntries(limit: 10).isEmpty)
    }

    @Test func retentionKeepsTheNewestEntries() throws {
        let store = try SQLiteTodoStore(path: path, retention: 5)
        for n in 0..<12 { _ = try store.insert(title: "Write number \(n)", completed: false) }
        let entries = try store.recentEntries(limit: 100)
        #expect(entries.count == 5)
        #expect(entries.first?.seq == store.startSeq + 12)
        #expect(entries.last?.seq == store.startSeq + 8)
    }
}

/// The ids a commit handler heard, in order.
private final class Heard: Sendable {
    private let state = Mutex<[Int64]>([])
    func append(_ value: Int64) { state.withLock { $0.append(value) } }
    var values: [Int64] { state.withLock { $0 } }
}
