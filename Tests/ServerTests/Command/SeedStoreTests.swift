import Dispatch
import Domain
import Foundation
import HTTP
import Storage
import Synchronization
import Testing

@testable import Server

/// `SeedStore`, the seeds' todos and inputs on the one write path, on real SQLite files: the task list's
/// judgement held exactly under concurrent writes, ids never reused, `Idempotency-Key`s answered from their
/// first write (also after a restart), and every committed entry handed on in order before its answer.
@Suite final class SeedStoreTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-seeds-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A store on `path`, waiting up to 10 s while one released just before still holds the file (its last
    /// answer is sent from its commit thread, which lets it go a moment later).
    private func open(maxTodos: Int = 1000, retention: Int = 100_000) throws -> SeedStore {
        let deadline = Date().addingTimeInterval(10)
        while true {
            do {
                return try SeedStore(path: path, retention: retention, maxTodos: maxTodos)
            } catch {
                guard error.description.contains("is in use"), Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// The answer to one todo write.
    private func answer(_ store: SeedStore, _ write: TodoWrite, key: String? = nil) -> Result<
        TodoWriteOutcome, JournalError
    >? {
        let answer = Mutex<Result<TodoWriteOutcome, JournalError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.write(write, key: key) { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        return answer.withLock { $0 }
    }

    /// The answer to one input entry.
    private func appended(
        _ store: SeedStore, topic: String, json: String, key: String?
    ) -> Result<JournalAppended, JournalError>? {
        let answer = Mutex<Result<JournalAppended, JournalError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.append(topic: topic, json: json, key: key) { result in
            answer.withLock { $0 = result }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        return answer.withLock { $0 }
    }

    /// Sends `count` inserts from `threads` threads at once; the answers, in no particular order.
    private func insertConcurrently(
        _ store: SeedStore, count: Int, threads: Int
    ) -> [Result<TodoWriteOutcome, JournalError>] {
        let answers = Mutex<[Result<TodoWriteOutcome, JournalError>]>([])
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<(count / threads) {
                group.enter()
                store.write(.insert(title: "t\(thread)-\(index)", completed: false), key: nil) { result in
                    answers.withLock { $0.append(result) }
                    group.leave()
                }
            }
        }
        _ = group.wait(timeout: .now() + 30)
        return answers.withLock { $0 }
    }

    @Test func concurrentAddsStopAtTheLimitAndADeleteFreesOnePlace() throws {
        let store = try open(maxTodos: 20)
        let before = store.start().todos.count  // a new file holds "Buy Milk"
        let answers = insertConcurrently(store, count: 80, threads: 8)
        let added = answers.compactMap { try? $0.get().todo }
        #expect(answers.count == 80)
        #expect(added.count == 20 - before)
        #expect(answers.filter { (try? $0.get().todo) == nil }.allSatisfy { $0 == .success(.full(limit: 20)) })
        #expect(Set(added.map(\.id)).count == added.count)
        let first = try #require(added.first?.id)
        #expect(answer(store, .delete(id: first)) == .success(.committed(nil)))
        #expect(answer(store, .delete(id: first)) == .success(.notFound(id: first)))
        #expect(insertConcurrently(store, count: 4, threads: 2).filter { (try? $0.get().todo) != nil }.count == 1)
    }

    @Test func idsAreNeverReusedEvenAfterDeletingTheNewestAndRestarting() throws {
        let newest: Int
        do {
            let store = try open()
            newest = try #require(try answer(store, .insert(title: "newest", completed: false))?.get().todo?.id)
            #expect(answer(store, .delete(id: newest)) == .success(.committed(nil)))
            store.stop()
        }
        let reopened = try open()
        #expect(reopened.start().todos.map(\.id) == [1])
        #expect(try answer(reopened, .insert(title: "after", completed: false))?.get().todo?.id == newest + 1)
        #expect(
            answer(reopened, .update(id: 99, title: "nowhere", completed: nil)) == .success(.notFound(id: 99)))
    }

    @Test func theStoreJudgesATitleAsTheTaskListDoesAndKeepsNothingItRefuses() throws {
        do {
            let store = try open()
            let done = DispatchSemaphore(value: 0)
            let status = Mutex<Int?>(nil)
            store.submitTodo(.insert(title: "  ab ", completed: false), key: nil, answer: { _ in .noContent }) {
                response in
                status.withLock { $0 = response.status }
                done.signal()
            }
            _ = done.wait(timeout: .now() + 10)
            #expect(status.withLock { $0 } == 422)
            // Nothing was kept: the next todo takes the next id, trimmed as the task list's filter trims it.
            #expect(
                try answer(store, .insert(title: "  Walk the dog ", completed: false))?.get().todo
                    == Todo(id: 2, title: "Walk the dog", completed: false))
            store.stop()
        }
        #expect(try open().start().todos.map(\.title) == ["Buy Milk", "Walk the dog"])
    }

    @Test func aKeyedWriteSentAgainIsAnsweredFromTheFirstAlsoAfterARestart() throws {
        let first: Todo
        do {
            let store = try open(maxTodos: 2)  // a new file holds "Buy Milk"
            first = try #require(
                try answer(store, .insert(title: "The last place", completed: false), key: "k")?.get().todo)
            // The key, not the body, names the write; a repeat is answered even when the list is full.
            #expect(
                answer(store, .insert(title: "Something else", completed: true), key: "k")
                    == .success(.committed(first)))
            #expect(answer(store, .insert(title: "One too many", completed: false)) == .success(.full(limit: 2)))
            store.stop()
        }
        let reopened = try open(maxTodos: 2)
        #expect(
            answer(reopened, .insert(title: "The last place", completed: false), key: "k")
                == .success(.committed(first)))
        #expect(reopened.start().todos.filter { $0.title == "The last place" }.count == 1)
    }

    @Test func aKeyedInputSentAgainGetsTheFirstRequestsJSONAndAnotherKindIsRefused() throws {
        let store = try open()
        let heard = Mutex<[(seq: Int64, name: String?)]>([])
        store.deliver(.frameworks) { seq, payload in heard.withLock { $0.append((seq, payload.name)) } }
        let first = try #require(
            try appended(store, topic: "frameworks", json: #"{"name":"Combine"}"#, key: "k")?.get())
        let again = try #require(try appended(store, topic: "frameworks", json: #"{"name":"UIKit"}"#, key: "k")?.get())
        #expect(!first.repeated && again.repeated && again.seq == first.seq && again.first == #"{"name":"Combine"}"#)
        #expect(answer(store, .insert(title: "Keyed", completed: false), key: "k") == .failure(.keyReused))
        #expect(
            appended(store, topic: "keyword", json: #"{"keyword":"x"}"#, key: "k").map { $0.map(\.seq) }
                == .failure(.keyReused))
        #expect(heard.withLock { $0.map(\.seq) } == [first.seq] && heard.withLock { $0.map(\.name) } == ["Combine"])
        let latest = Mutex<(seq: Int64, json: String)?>(nil)
        store.latest(topic: "frameworks") { result in latest.withLock { $0 = try? result.get() } }
        #expect(latest.withLock { $0?.seq } == first.seq && latest.withLock { $0?.json } == #"{"name":"Combine"}"#)
    }

    /// Each resource sends its entries into its own input, in id order, before their writes are answered.
    @Test func eachResourceSendsItsEntriesIntoItsOwnInputInOrderBeforeTheirAnswers() throws {
        let store = try open()
        let todos = Mutex<[Int64]>([])
        let frameworks = Mutex<[Int64]>([])
        store.deliverTodos { committed in todos.withLock { $0.append(committed.seq) } }
        store.deliver(.frameworks) { seq, _ in frameworks.withLock { $0.append(seq) } }
        let seen = Mutex<[Bool]>([])
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<10 {
                group.enter()
                store.write(.insert(title: "t\(thread)-\(index)", completed: false), key: nil) { result in
                    let id = (try? result.get().todo?.id) ?? nil
                    seen.withLock { $0.append(id != nil && !todos.withLock { $0 }.isEmpty) }
                    group.leave()
                }
                group.enter()
                store.append(topic: "frameworks", json: #"{"name":"Combine"}"#) { result in
                    let seq = (try? result.get()) ?? 0
                    seen.withLock { $0.append(frameworks.withLock { $0 }.contains(seq)) }
                    group.leave()
                }
            }
        }
        _ = group.wait(timeout: .now() + 30)
        let (todoSeqs, frameworkSeqs) = (todos.withLock { $0 }, frameworks.withLock { $0 })
        #expect(todoSeqs.count == 40 && todoSeqs == todoSeqs.sorted())
        #expect(frameworkSeqs.count == 40 && frameworkSeqs == frameworkSeqs.sorted())
        #expect(Set(todoSeqs).isDisjoint(with: frameworkSeqs))
        #expect(seen.withLock { $0 }.count == 80 && seen.withLock { $0 }.allSatisfy { $0 })
        let last = max(todoSeqs.last ?? 0, frameworkSeqs.last ?? 0)
        #expect(applied(store, last) == true)
        #expect(applied(store, last + 1) == false)
    }

    /// A view model slow to take an entry holds no commit: the next write commits meanwhile, and is answered
    /// once the slow entry and its own are in.
    @Test func aSlowDeliveryDoesNotHoldTheNextCommit() throws {
        let store = try open()
        let release = DispatchSemaphore(value: 0)
        let heard = Mutex<[String?]>([])
        store.deliver(.frameworks) { _, payload in
            if payload.name == "Slow" { _ = release.wait(timeout: .now() + 10) }
            heard.withLock { $0.append(payload.name) }
        }
        let answered = Mutex<[String]>([])
        let bothAnswered = DispatchGroup()
        for name in ["Slow", "Next"] {
            bothAnswered.enter()
            store.append(topic: "frameworks", json: #"{"name":"\#(name)"}"#) { _ in
                answered.withLock { $0.append(name) }
                bothAnswered.leave()
            }
        }
        // The second entry is committed (the journal holds it) while the first is still being taken.
        let deadline = Date().addingTimeInterval(5)
        let newest = Mutex<String?>(nil)
        while Date() < deadline, newest.withLock({ $0 }) != #"{"name":"Next"}"# {
            Thread.sleep(forTimeInterval: 0.01)
            store.latest(topic: "frameworks") { result in newest.withLock { $0 = (try? result.get())?.json } }
        }
        #expect(newest.withLock { $0 } == #"{"name":"Next"}"#)
        #expect(answered.withLock { $0 }.isEmpty && heard.withLock { $0 }.isEmpty)
        release.signal()
        #expect(bothAnswered.wait(timeout: .now() + 10) == .success)
        #expect(heard.withLock { $0 } == ["Slow", "Next"] && answered.withLock { $0 } == ["Slow", "Next"])
    }

    /// The start's newest entries, read again, go into the same inputs as a commit's, oldest first, each to
    /// its own resource's input only; one of another resource or not readable reaches none.
    @Test func aReplayGoesIntoEachResourcesOwnInputInOrder() throws {
        let store = try open()
        let heard = Mutex<[String]>([])
        store.deliverTodos { committed in heard.withLock { $0.append("todos \(committed.seq) \(committed.change)") } }
        store.deliver(.frameworks) { seq, payload in
            heard.withLock { $0.append("frameworks \(seq) \(payload.name ?? "")") }
        }
        store.deliver(.movies) { seq, payload in
            heard.withLock { $0.append("movies \(seq) \(payload.keyword ?? "")") }
        }
        store.replay([
            JournalEntry(seq: 7, change: .input(topic: "frameworks", json: #"{"name":"Combine"}"#)),
            JournalEntry(seq: 8, change: JournalChange(TodoChange.upsert(Todo(id: 1, title: "Buy Milk")))),
            JournalEntry(seq: 9, change: .input(topic: "movies", json: #"{"keyword":"star"}"#)),
            JournalEntry(seq: 10, change: .input(topic: "keyword", json: #"{"keyword":"x"}"#)),
            JournalEntry(seq: 11, change: .input(topic: "frameworks", json: "not json")),
            JournalEntry(seq: 12, change: JournalChange(TodoChange.delete(id: 1))),
        ])
        #expect(
            heard.withLock { $0 } == [
                "frameworks 7 Combine", "todos 8 \(TodoChange.upsert(Todo(id: 1, title: "Buy Milk")))", "movies 9 star",
                "todos 12 \(TodoChange.delete(id: 1))",
            ])
    }

    /// What `whenApplied` answers for `seq` (nil: no answer within 10 s).
    private func applied(_ store: SeedStore, _ seq: Int64) -> Bool? {
        let answer = Mutex<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.whenApplied(seq, timeout: 0) { applied in
            answer.withLock { $0 = applied }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        return answer.withLock { $0 }
    }

    @Test func aMemoryStoreWorksAndKeepsNothing() throws {
        do {
            let store = try SeedStore(path: ":memory:", retention: 100, maxTodos: 10)
            #expect(try answer(store, .insert(title: "gone", completed: false))?.get().todo?.id == 2)
        }
        let again = try SeedStore(path: ":memory:", retention: 100, maxTodos: 10)
        #expect(again.start().todos.map(\.title) == ["Buy Milk"])
    }
}
