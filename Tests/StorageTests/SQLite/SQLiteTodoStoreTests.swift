import Domain
import Foundation
import Testing

@testable import Storage

/// `SQLiteTodoStore` against real files in a fresh temporary directory.
@Suite final class SQLiteTodoStoreTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-store-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    @Test func freshFileStartsWithBuyMilk() throws {
        let store = try SQLiteTodoStore(path: path)
        #expect(try store.all() == [Todo(id: 1, title: "Buy Milk", completed: false)])
    }

    @Test func restartKeepsEveryChange() throws {
        do {
            let store = try SQLiteTodoStore(path: path)
            _ = try store.insert(title: "Walk the dog", completed: false)
            _ = try store.insert(title: "Water the plants 🌱", completed: true)
            #expect(try store.update(Todo(id: 1, title: "Buy oat milk", completed: true)))
            #expect(try store.delete(id: 2))
        }
        let reopened = try reopening { try SQLiteTodoStore(path: path) }
        #expect(
            try reopened.all() == [
                Todo(id: 1, title: "Buy oat milk", completed: true),
                Todo(id: 3, title: "Water the plants 🌱", completed: true),
            ])
    }

    @Test func deletingEverythingDoesNotBringBackTheSeed() throws {
        do {
            let store = try SQLiteTodoStore(path: path)
            #expect(try store.delete(id: 1))
        }
        #expect(try reopening { try SQLiteTodoStore(path: path) }.all() == [])
    }

    @Test func idsAreNeverReusedEvenAfterDeletingTheNewestAndRestarting() throws {
        do {
            let store = try SQLiteTodoStore(path: path)
            let second = try store.insert(title: "Second", completed: false)
            #expect(second.id == 2)
            #expect(try store.delete(id: second.id))
        }
        let reopened = try reopening { try SQLiteTodoStore(path: path) }
        #expect(try reopened.insert(title: "Third", completed: false).id == 3)
    }

    @Test func aSecondConnectionSeesAChangeAsSoonAsTheCallReturns() throws {
        let store = try SQLiteTodoStore(path: path)
        let todo = try store.insert(title: "Committed", completed: false)
        // A plain connection: a second store on a held file is refused (one server per file).
        let other = try SQLiteConnection(path: path)
        #expect(try other.query("SELECT id FROM todos ORDER BY id").last == [.integer(Int64(todo.id))])
        #expect(throws: JournalError.self) { try SQLiteTodoStore(path: path) }
    }

    @Test func usesAWriteAheadLogWithFullSync() throws {
        _ = try SQLiteTodoStore(path: path)
        let connection = try SQLiteConnection(path: path)
        #expect(try connection.query("PRAGMA journal_mode").first?.first == .text("wal"))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func unknownIdsAreReportedNotInvented() throws {
        let store = try SQLiteTodoStore(path: path)
        #expect(try store.update(Todo(id: 99, title: "Nothing", completed: true)) == false)
        #expect(try store.delete(id: 99) == false)
        #expect(try store.all().count == 1)
    }

    @Test func textIsStoredExactly() throws {
        let store = try SQLiteTodoStore(path: path)
        let title = #"Robert'); DROP TABLE todos;-- "quoted" \ 👨‍👩‍👧‍👦"#
        let todo = try store.insert(title: title, completed: false)
        #expect(try store.all().last == Todo(id: todo.id, title: title, completed: false))
    }

    @Test func memoryDatabaseWorksAndKeepsNothing() throws {
        let first = try SQLiteTodoStore(path: ":memory:")
        _ = try first.insert(title: "Gone after this", completed: false)
        #expect(try first.all().count == 2)
        #expect(try SQLiteTodoStore(path: ":memory:").all() == [Todo(id: 1, title: "Buy Milk", completed: false)])
    }

    @Test func concurrentInsertsGetDistinctIds() async throws {
        let store = try SQLiteTodoStore(path: path)
        let ids = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask { try store.insert(title: "Task \(index)", completed: false).id }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(Set(ids).count == 40)
        #expect(try store.all().count == 41)
    }

    @Test func anUnopenablePathIsAnError() {
        #expect(throws: JournalError.self) {
            _ = try SQLiteTodoStore(path: "/nonexistent-dir-\(UUID())/todos.sqlite")
        }
    }

    @Test func aFileThatIsNotADatabaseSaysSoWithSQLitesCode() throws {
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteTodoStore(path: path)
            Issue.record("a file of text was opened as a database")
        } catch {
            // SQLITE_NOTADB (26), and which file it was.
            #expect(error.description.contains(path))
            guard case .failed(_, let code) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(code == .sqlite(26))
        }
    }
}
