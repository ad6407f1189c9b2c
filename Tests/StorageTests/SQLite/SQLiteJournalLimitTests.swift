import Domain
import Foundation
import Synchronization
import Testing

@testable import Storage

/// `--max-todos` on SQLite holds exactly, however many loops add at once: the limit is checked under the
/// lock that covers the commit, not against a list that writes in flight have not reached yet.
@Suite final class SQLiteJournalLimitTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-limit-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends `count` inserts from `threads` threads at once; the answers, in no particular order.
    private func insertConcurrently(
        _ journal: SQLiteJournal, count: Int, threads: Int
    ) -> [Result<TodoWriteOutcome, JournalError>] {
        let answers = Mutex<[Result<TodoWriteOutcome, JournalError>]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<(count / threads) {
                journal.write(.insert(title: "t\(thread)-\(index)", completed: false), key: nil) { result in
                    answers.withLock { $0.append(result) }
                }
            }
        }
        return answers.withLock { $0 }
    }

    /// The answer to one write (SQLite answers before `write` returns).
    private func answer(_ journal: SQLiteJournal, _ write: TodoWrite) -> Result<TodoWriteOutcome, JournalError>? {
        let answer = Mutex<Result<TodoWriteOutcome, JournalError>?>(nil)
        journal.write(write, key: nil) { result in answer.withLock { $0 = result } }
        return answer.withLock { $0 }
    }

    @Test func concurrentAddsStopAtTheLimitAndADeleteFreesOnePlace() throws {
        let journal = try SQLiteJournal(path: path, maxTodos: 20)
        let before = try journal.store.all().count  // a new file holds the seed's sample todos
        let answers = insertConcurrently(journal, count: 80, threads: 8)
        let added = answers.compactMap { try? $0.get().todo }
        let refused = answers.filter { (try? $0.get().todo) == nil }
        #expect(answers.count == 80)
        #expect(added.count == 20 - before)
        #expect(refused.count == 60 + before)
        #expect(refused.allSatisfy { $0 == .success(.full(limit: 20)) })
        #expect(try journal.store.all().count == 20)

        let first = try #require(added.first?.id)
        #expect(answer(journal, .delete(id: first)) == .success(.committed(nil)))
        #expect(insertConcurrently(journal, count: 4, threads: 2).filter { (try? $0.get().todo) != nil }.count == 1)
        #expect(try journal.store.all().count == 20)
    }

    @Test func aReopenedFileCountsTheTodosItHolds() throws {
        do {
            let journal = try SQLiteJournal(path: path, maxTodos: 3)
            _ = insertConcurrently(journal, count: 3, threads: 1)
            journal.stop()
        }
        let reopened = try reopening { try SQLiteJournal(path: path, maxTodos: 3) }
        #expect(answer(reopened, .insert(title: "one too many", completed: false)) == .success(.full(limit: 3)))
    }
}
