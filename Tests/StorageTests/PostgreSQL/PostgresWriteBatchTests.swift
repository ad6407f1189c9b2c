import Domain
import Foundation
import TestSupport
import Testing

@testable import LibEvent
@testable import Storage

/// Group commit of todo writes on a real PostgreSQL (`TestPostgres`): writes that arrive together share a
/// commit, and each keeps its own answer.
@Suite(.enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresWriteBatchTests {
    @Test func writesArrivingTogetherShareCommitsAndABadOneFailsAlone() throws {
        let loop = try EventLoop(name: "pg-batch-test")
        loop.run()
        defer { loop.stop() }
        let journal = PostgresJournal(uri: try TestPostgres.uri(), loop: loop)
        let start = journal.start()
        defer { journal.stop() }
        let applied = LockedBox<[PostgresJournal.Entry]>([])
        journal.follow(after: start.lastSeq) { entries in applied.mutate { $0 += entries } }
        let key = "batch-test-\(UInt64.random(in: 0...UInt64.max))"
        let count = 60
        let answers = LockedBox<[Int: Result<TodoWriteOutcome, JournalError>]>([:])
        // All queued in one go on the loop: the first goes alone, the rest wait for it and share batches.
        loop.execute {
            for index in 0..<count {
                let write: PostgresJournal.Write =
                    index == 30
                    ? .update(id: Int.max, title: "no such todo", completed: nil)
                    : .insert(title: "batched \(index)", completed: index % 2 == 0)
                let writeKey = index == 10 || index == 40 ? key : nil
                journal.write(write, key: writeKey) { result in answers.mutate { $0[index] = result } }
            }
        }
        #expect(eventually(timeout: 30) { answers.value.count == count })
        let results = answers.value
        func todo(_ index: Int) -> Todo? {
            if case .success(.committed(let todo?)) = results[index] { todo } else { nil }
        }
        #expect(results[30] == .success(.notFound(id: Int.max)))
        // The second write with the key is answered with what the first did, and not applied again.
        let keyed = try #require(todo(10))
        #expect(todo(40) == keyed)
        var todos: [Int: Todo] = [:]
        for index in 0..<count where index != 30 && index != 40 {
            let todo = try #require(todo(index))
            #expect(todo.title == "batched \(index)" && todo.completed == (index % 2 == 0))
            todos[todo.id] = todo
        }
        #expect(todos.count == count - 2)
        // Every committed write was applied here once, in journal order, with consecutive ids.
        #expect(eventually(timeout: 10) { applied.value.count >= count - 2 })
        let entries = applied.value.filter {
            if case .upsert(let todo)? = $0.change.todoChange { return todos[todo.id] != nil }
            return false
        }
        #expect(entries.count == count - 2)
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $1.seq > $0.seq })
        #expect(Set(entries.map(\.seq)).count == entries.count)
        let figures = LockedBox<(writes: Int, commits: Int)?>(nil)
        loop.execute { figures.value = (journal.committedWrites, journal.commits) }
        #expect(eventually { figures.value != nil })
        let (writes, commits) = try #require(figures.value)
        #expect(writes == count - 2)
        // 60 writes queued at once: the first alone, the other 59 in batches of at most 64.
        #expect(commits <= 3, "\(writes) writes took \(commits) commits")
    }
}
