import Domain
import Foundation
import Synchronization
import Testing

@testable import Storage

/// `Idempotency-Key` on SQLite: the key is kept in its write's entry (schema version 3), so a write sent
/// again with it — also after a restart — is answered from the first write and changes nothing; a key of
/// another kind of input is refused; keys go with their entries.
@Suite final class SQLiteJournalKeyTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("todos.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-keys-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The answer to one write (SQLite answers before `write` returns).
    private func answer(_ journal: SQLiteJournal, _ write: TodoWrite, key: String?) -> Result<
        TodoWriteOutcome, JournalError
    >? {
        let answer = Mutex<Result<TodoWriteOutcome, JournalError>?>(nil)
        journal.write(write, key: key) { result in answer.withLock { $0 = result } }
        return answer.withLock { $0 }
    }

    /// The answer to one keyed input entry.
    private func appended(
        _ journal: SQLiteJournal, topic: String, json: String, key: String?
    ) -> Result<JournalAppended, JournalError>? {
        let answer = Mutex<Result<JournalAppended, JournalError>?>(nil)
        journal.append(topic: topic, json: json, key: key) { result in answer.withLock { $0 = result } }
        return answer.withLock { $0 }
    }

    /// Every entry the journal hands its follower, in order.
    private func follow(_ journal: SQLiteJournal) -> Heard {
        let heard = Heard()
        journal.follow(after: journal.start().lastSeq) { entries in heard.append(entries) }
        return heard
    }

    @Test func aKeyedWriteSentAgainIsAnsweredFromTheFirstAndChangesNothing() throws {
        let journal = try SQLiteJournal(path: path)
        let heard = follow(journal)
        let first = try #require(
            try answer(journal, .insert(title: "Walk the dog", completed: false), key: "k-1")?.get().todo)
        let again = answer(journal, .insert(title: "Walk the dog", completed: false), key: "k-1")
        #expect(again == .success(.committed(first)))
        // A repeat with another body is still the first write's answer: the key, not the body, names it.
        #expect(
            answer(journal, .insert(title: "Something else", completed: true), key: "k-1")
                == .success(.committed(first)))
        #expect(try journal.store.all().filter { $0.title == "Walk the dog" }.count == 1)
        #expect(try journal.store.all().allSatisfy { $0.title != "Something else" })
        #expect(heard.entries.count == 1)

        // Each kind: an update and a delete sent twice are applied once.
        let update = TodoWrite.update(id: first.id, title: nil, completed: true)
        let updated = Todo(id: first.id, title: "Walk the dog", completed: true)
        #expect(answer(journal, update, key: "k-2") == .success(.committed(updated)))
        #expect(
            answer(journal, .update(id: first.id, title: "Changed", completed: nil), key: "k-2")
                == .success(.committed(updated)))
        #expect(answer(journal, .delete(id: first.id), key: "k-3") == .success(.committed(nil)))
        #expect(answer(journal, .delete(id: first.id), key: "k-3") == .success(.committed(nil)))
        // Without its key the same delete is a new write, of a todo that is gone.
        #expect(answer(journal, .delete(id: first.id), key: nil) == .success(.notFound(id: first.id)))
        #expect(heard.entries.map(\.seq) == (1...3).map { journal.start().lastSeq + Int64($0) })
    }

    @Test func aKeySurvivesARestart() throws {
        let first: Todo
        do {
            let journal = try SQLiteJournal(path: path)
            first = try #require(
                try answer(journal, .insert(title: "Before the restart", completed: false), key: "k")?.get().todo)
            journal.stop()
        }
        let reopened = try reopening { try SQLiteJournal(path: path) }
        let heard = follow(reopened)
        #expect(
            answer(reopened, .insert(title: "Before the restart", completed: false), key: "k")
                == .success(.committed(first)))
        #expect(try reopened.store.all().filter { $0.title == "Before the restart" }.count == 1)
        #expect(heard.entries.isEmpty)
    }

    @Test func aRepeatedInsertIsAnsweredEvenWhenTheListIsFull() throws {
        let journal = try SQLiteJournal(path: path, maxTodos: 2)  // a new file holds "Buy Milk"
        let first = try #require(
            try answer(journal, .insert(title: "The last place", completed: false), key: "k")?.get().todo)
        #expect(
            answer(journal, .insert(title: "The last place", completed: false), key: "k") == .success(.committed(first))
        )
        #expect(
            answer(journal, .insert(title: "One too many", completed: false), key: "other")
                == .success(.full(limit: 2)))
    }

    @Test func aKeyedInputSentAgainGetsTheFirstRequestsJSON() throws {
        let journal = try SQLiteJournal(path: path)
        let heard = follow(journal)
        let first = try #require(
            try appended(journal, topic: "frameworks", json: #"{"name":"Combine"}"#, key: "k")?.get())
        #expect(!first.repeated)
        let again = try #require(
            try appended(journal, topic: "frameworks", json: #"{"name":"UIKit"}"#, key: "k")?.get())
        #expect(again.repeated)
        #expect(again.seq == first.seq)
        #expect(again.first == #"{"name":"Combine"}"#)
        #expect(
            heard.entries == [
                JournalEntry(seq: first.seq, change: .input(topic: "frameworks", json: #"{"name":"Combine"}"#))
            ])
    }

    @Test func aKeyOfAnotherKindOfRequestIsRefusedAndChangesNothing() throws {
        let journal = try SQLiteJournal(path: path)
        _ = try #require(try answer(journal, .insert(title: "Keyed", completed: false), key: "k")?.get())
        let heard = follow(journal)
        let before = try journal.store.all()
        #expect(
            appended(journal, topic: "frameworks", json: #"{"name":"Combine"}"#, key: "k").map { r in r.map(\.seq) }
                == .failure(.keyReused))
        _ = try #require(try appended(journal, topic: "keyword", json: #"{"keyword":"x"}"#, key: "j")?.get())
        #expect(answer(journal, .insert(title: "Keyed twice", completed: false), key: "j") == .failure(.keyReused))
        #expect(try journal.store.all() == before)
        #expect(heard.entries.count == 1)  // the keyword entry only
    }

    @Test func keysGoWithTheirEntries() throws {
        let journal = try SQLiteJournal(path: path, retention: 3)
        let first = try #require(try answer(journal, .insert(title: "Old", completed: false), key: "old")?.get().todo)
        for n in 0..<3 { _ = answer(journal, .insert(title: "Newer \(n)", completed: false), key: nil) }
        // The entry of "old" is past retention: the key is free again and names a new write.
        let again = try #require(try answer(journal, .insert(title: "Old", completed: false), key: "old")?.get().todo)
        #expect(again.id != first.id)
    }

    @Test func aFileOfVersionTwoMigratesAndKeepsItsEntries() throws {
        let seq: Int64
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute(
                """
                CREATE TABLE todos (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
                                    completed INTEGER NOT NULL DEFAULT 0);
                INSERT INTO todos (title, completed) VALUES ('Buy Milk', 0);
                CREATE TABLE livestate_events (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, change TEXT NOT NULL);
                CREATE TABLE livestate_counter (only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
                                                last_id INTEGER NOT NULL);
                INSERT INTO livestate_counter VALUES (1, 500);
                INSERT INTO livestate_events VALUES (500, 'frameworks', '{"name":"Combine"}');
                PRAGMA user_version = 2;
                """)
            seq = 500
        }
        let journal = try SQLiteJournal(path: path)
        #expect(
            journal.recent(limit: 10, bytes: 1 << 20) == [
                JournalRow(seq: seq, change: .input(topic: "frameworks", json: #"{"name":"Combine"}"#))
            ])
        let todo = try #require(try answer(journal, .insert(title: "Keyed", completed: false), key: "k")?.get().todo)
        #expect(answer(journal, .insert(title: "Keyed", completed: false), key: "k") == .success(.committed(todo)))
        journal.stop()
        let check = try SQLiteConnection(path: path)
        #expect(try check.query("PRAGMA user_version").first?.first?.integer == 4)
    }

    @Test func aFileOfVersionThreeMovesItsEntriesIntoTheTableADataFileUsesToo() throws {
        let todo = #"{"id":2,"title":"Walk","completed":false}"#
        let walked = #"{"id":2,"title":"Walk","completed":true}"#
        do {
            let old = try SQLiteConnection(path: path)
            try old.execute(
                """
                CREATE TABLE todos (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
                                    completed INTEGER NOT NULL DEFAULT 0);
                INSERT INTO todos (id, title, completed) VALUES (2, 'Walk', 1);
                CREATE TABLE livestate_events (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, change TEXT NOT NULL,
                                               write_key TEXT);
                CREATE TABLE livestate_counter (only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
                                                last_id INTEGER NOT NULL);
                INSERT INTO livestate_counter VALUES (1, 700);
                INSERT INTO livestate_events VALUES (600, 'todos', '{"op":"upsert","todo":\(todo)}', 'insert-key');
                INSERT INTO livestate_events VALUES (601, 'todos',
                    '{"op":"upsert","todo":\(walked),"before":\(todo)}', NULL);
                INSERT INTO livestate_events VALUES (602, 'todos',
                    '{"op":"delete","id":1,"before":{"id":1,"title":"Buy Milk","completed":false}}', NULL);
                INSERT INTO livestate_events VALUES (603, 'keyword', '{"keyword":"star"}', 'keyword-key');
                INSERT INTO livestate_events VALUES (604, 'todos', 'not json', NULL);
                PRAGMA user_version = 3;
                """)
        }
        let journal = try SQLiteJournal(path: path)
        let walk = Todo(id: 2, title: "Walk", completed: false)
        // The todo entries read back as they were written: the change and the todo before it.
        #expect(
            try journal.store.recentEntries(limit: 10).reversed() == [
                TodoJournalEntry(seq: 600, change: .upsert(walk), before: nil),
                TodoJournalEntry(seq: 601, change: .upsert(Todo(id: 2, title: "Walk", completed: true)), before: walk),
                TodoJournalEntry(seq: 602, change: .delete(id: 1), before: Todo(id: 1, title: "Buy Milk")),
            ])
        #expect(
            journal.recent(limit: 10, bytes: 1 << 20).first { $0.topic == "keyword" }?.change
                == .input(topic: "keyword", json: #"{"keyword":"star"}"#))
        // The keys carry over: a write sent again is answered from its entry and not applied again.
        #expect(
            answer(journal, .insert(title: "Walk", completed: false), key: "insert-key") == .success(.committed(walk)))
        let repeated = try #require(try appended(journal, topic: "keyword", json: "{}", key: "keyword-key")?.get())
        #expect(repeated.seq == 603 && repeated.repeated && repeated.first == #"{"keyword":"star"}"#)
        // The next entry comes after the old counter, and the old tables are gone.
        let next = try #require(try answer(journal, .delete(id: 2), key: nil)?.get())
        #expect(next == .committed(nil))
        #expect(try journal.store.recentEntries(limit: 1).first?.seq ?? 0 > 700)
        journal.stop()
        let check = try SQLiteConnection(path: path)
        #expect(try check.query("PRAGMA user_version").first?.first?.integer == 4)
        #expect(
            try check.query("SELECT name FROM sqlite_master WHERE name IN ('livestate_events', 'livestate_counter')")
                .isEmpty)
    }

    @Test func aDataFilesJournalIsRefused() throws {
        do { _ = try SQLiteDocumentJournal(path: path) }
        #expect {
            _ = try SQLiteJournal(path: path)
        } throws: { error in
            "\(error)".contains("a data file's journal")
        }
    }

    @Test func aFileOfANewerVersionIsRefused() throws {
        do {
            let newer = try SQLiteConnection(path: path)
            try newer.execute("CREATE TABLE todos (id INTEGER PRIMARY KEY); PRAGMA user_version = 5;")
        }
        #expect {
            _ = try SQLiteJournal(path: path)
        } throws: { error in
            "\(error)".contains("schema version 5") && "\(error)".contains("up to 4")
        }
        let check = try SQLiteConnection(path: path)
        #expect(try check.query("PRAGMA user_version").first?.first?.integer == 5)
    }
}

/// The entries a follower heard, in order.
private final class Heard: Sendable {
    private let state = Mutex<[JournalEntry]>([])
    func append(_ entries: [JournalEntry]) { state.withLock { $0.append(contentsOf: entries) } }
    var entries: [JournalEntry] { state.withLock { $0 } }
}
