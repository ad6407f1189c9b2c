import Domain
import Foundation
import TestSupport
import Testing

@testable import LibEvent
@testable import Storage

/// `PostgresJournal.recent` and the migrations to schema version 6 on a real PostgreSQL (`TestPostgres`), each
/// on a database of its own so that no other test's writes come between.
@Suite(.enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresRecentTests {
    /// A new empty database on the test cluster; its URI.
    private func freshDatabase(on loop: EventLoop) throws -> String {
        let uri = try TestPostgres.uri()
        let name = "livestate_recent_\(UInt32.random(in: 0...UInt32.max))"
        try run(uri, on: loop, "CREATE DATABASE \(name)")
        let slash = try #require(uri.lastIndex(of: "/"))
        return String(uri[..<slash]) + "/" + name
    }

    /// A new database whose `livestate_schema` says `version`, with the tables `sql` creates; its URI.
    private func database(version: Int, on loop: EventLoop, _ sql: String = "") throws -> String {
        let uri = try freshDatabase(on: loop)
        try run(
            uri, on: loop,
            "CREATE TABLE livestate_schema (version integer NOT NULL); INSERT INTO livestate_schema VALUES (\(version));"
                + sql)
        return uri
    }

    /// The tables of schema versions 3 to 5 (they differ only in their functions), as the migration knows them.
    private static let olderTables = """
        CREATE TABLE todos (id BIGSERIAL PRIMARY KEY, title TEXT NOT NULL, completed BOOLEAN NOT NULL DEFAULT false);
        CREATE TABLE livestate_counter (only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
            last_id BIGINT NOT NULL, pruned_below BIGINT NOT NULL DEFAULT 0);
        CREATE TABLE livestate_events (id BIGINT PRIMARY KEY, topic TEXT NOT NULL, change TEXT NOT NULL,
            committed_at TIMESTAMPTZ NOT NULL DEFAULT now(), write_key TEXT UNIQUE);
        """

    /// Runs `sql` (a script) on a connection of its own and waits for its answer.
    @discardableResult
    private func run(_ uri: String, on loop: EventLoop, _ sql: String) throws -> PostgresRows {
        let box = LockedBox<Result<PostgresRows, PostgresError>?>(nil)
        loop.execute {
            PostgresConnection.open(uri, on: loop, timeout: 5) { opened in
                switch opened {
                case .success(let connection):
                    connection.script(sql) { result in
                        box.value = result
                        connection.close("done")
                    }
                case .failure(let error): box.value = .failure(error)
                }
            }
        }
        #expect(eventually(timeout: 15) { box.value != nil })
        return try #require(box.value).get()
    }

    private func write(_ journal: PostgresJournal, _ write: TodoWrite) throws -> Todo? {
        let box = LockedBox<Result<TodoWriteOutcome, JournalError>?>(nil)
        journal.write(write, key: nil) { box.value = $0 }
        #expect(eventually(timeout: 15) { box.value != nil })
        return try #require(box.value).get().todo
    }

    private func started(_ uri: String, on loop: EventLoop) -> (PostgresJournal, JournalSnapshot) {
        let journal = PostgresJournal(uri: uri, loop: loop)
        let start = journal.start()
        journal.follow(after: start.lastSeq) { _ in }
        return (journal, start)
    }

    @Test func aRestartedInstanceRebuildsEveryListItsEntriesLedTo() throws {
        let loop = try EventLoop(name: "pg-recent-test")
        loop.run()
        defer { loop.stop() }
        let uri = try freshDatabase(on: loop)
        let (first, start) = started(uri, on: loop)
        var lists = [start.todos]
        let a = try #require(try write(first, .insert(title: "A", completed: false)))
        lists.append(lists.last! + [a])
        let b = try #require(try write(first, .insert(title: "B", completed: false)))
        lists.append(lists.last! + [b])
        let done = try #require(try write(first, .update(id: a.id, title: nil, completed: true)))
        lists.append(lists.last!.map { $0.id == a.id ? done : $0 })
        _ = try write(first, .delete(id: b.id))
        lists.append(lists.last!.filter { $0.id != b.id })
        first.stop()

        let (second, restart) = started(uri, on: loop)
        defer { second.stop() }
        #expect(restart.todos == lists.last)
        let rows = second.recent(limit: 1024, bytes: 16 << 20)
        #expect(rows.count == 4)
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.seq > $1.seq })
        #expect(rows.first?.seq == restart.lastSeq)
        // Walking back from the restart's list gives every list the first run's events carried, in order.
        var after = restart.todos
        var rebuilt = [after]
        for row in rows {
            let entry = try #require(TodoJournalEntry(row))
            after = try #require(entry.reverted(after))
            rebuilt.insert(after, at: 0)
        }
        #expect(rebuilt == lists)
        // The bounds: the count, and the bytes (the newest always).
        #expect(second.recent(limit: 2, bytes: 16 << 20).map(\.seq) == Array(rows.prefix(2).map(\.seq)))
        #expect(second.recent(limit: 1024, bytes: 1).map(\.seq) == [rows[0].seq])
    }

    @Test(arguments: [3, 4]) func anOlderSchemaMigratesKeepingTodosAndEntriesWhichAreAReplayBoundary(version: Int)
        throws
    {
        let loop = try EventLoop(name: "pg-migrate-test")
        loop.run()
        defer { loop.stop() }
        // The tables of versions 3 and 4 as the migration knows them (they differ only in their function),
        // with entries as those versions wrote them: no `before`, no `insert`.
        let uri = try database(
            version: version, on: loop,
            """
            \(Self.olderTables)
            INSERT INTO todos (title, completed) VALUES ('Old', true);
            INSERT INTO livestate_counter (last_id) VALUES (1000);
            INSERT INTO livestate_events (id, topic, change) VALUES
                (999, 'todos', '{"op":"upsert","todo":{"id":1,"title":"Old","completed":false}}'),
                (1000, 'todos', '{"op":"upsert","todo":{"id":1,"title":"Old","completed":true}}');
            """)
        let (journal, start) = started(uri, on: loop)
        defer { journal.stop() }
        #expect(start.todos == [Todo(id: 1, title: "Old", completed: true)])
        #expect(start.lastSeq == 1000)
        #expect(try run(uri, on: loop, "SELECT version FROM livestate_schema").rows == [["6"]])
        #expect(try run(uri, on: loop, "SELECT count(*) FROM livestate_entries WHERE seq <= 1000").rows == [["2"]])
        #expect(try run(uri, on: loop, "SELECT replay_floor FROM livestate_counter").rows == [["1000"]])
        // An old update without its row would be taken for an insert: the replay stops before it.
        #expect(journal.recent(limit: 1024, bytes: 16 << 20).isEmpty)
        _ = try write(journal, .update(id: 1, title: "New", completed: nil))
        journal.stop()
        let (again, restart) = started(uri, on: loop)
        defer { again.stop() }
        #expect(restart.todos == [Todo(id: 1, title: "New", completed: true)])
        #expect(again.recent(limit: 1024, bytes: 16 << 20).map(\.seq) == [1001])
    }

    @Test func aVersionFiveDatabaseMovesItsEntriesAndAnInstanceOfThatBinaryStillReadsAndWrites() throws {
        let loop = try EventLoop(name: "pg-migrate-5-test")
        loop.run()
        defer { loop.stop() }
        let milk = #"{"id":1,"title":"Milk","completed":false}"#
        let bought = #"{"id":1,"title":"Milk","completed":true}"#
        // Version 5's tables, with entries as its function wrote them: an insert, an update with its row
        // before, a keyed input.
        let uri = try database(
            version: 5, on: loop,
            """
            \(Self.olderTables)
            INSERT INTO todos (title, completed) VALUES ('Milk', true);
            INSERT INTO livestate_counter (last_id) VALUES (2002);
            INSERT INTO livestate_events (id, topic, change, write_key) VALUES
                (2000, 'todos', '{"op":"upsert","insert":true,"todo":\(milk)}', 'insert-key'),
                (2001, 'todos', '{"op":"upsert","todo":\(bought),"before":\(milk)}', NULL),
                (2002, 'keyword', '{"keyword":"star"}', 'keyword-key');
            """)
        let (journal, start) = started(uri, on: loop)
        defer { journal.stop() }
        #expect(start.todos == [Todo(id: 1, title: "Milk", completed: true)] && start.lastSeq == 2002)
        // Every entry is replayable: the lists walk back to the one before the insert.
        let rows = journal.recent(limit: 1024, bytes: 16 << 20)
        #expect(rows.map(\.seq) == [2002, 2001, 2000])
        #expect(rows.first?.change == .input(topic: "keyword", json: #"{"keyword":"star"}"#))
        var after = start.todos
        for row in rows.dropFirst() {
            let entry = try #require(TodoJournalEntry(row))
            after = try #require(entry.reverted(after))
        }
        #expect(after.isEmpty)
        // The key carried over: the insert sent again is answered from its entry, not applied twice.
        let box = LockedBox<Result<TodoWriteOutcome, JournalError>?>(nil)
        journal.write(.insert(title: "Milk", completed: false), key: "insert-key") { box.value = $0 }
        #expect(eventually(timeout: 15) { box.value != nil })
        #expect(try #require(box.value).get() == .committed(Todo(id: 1, title: "Milk", completed: false)))
        // An instance of the version-5 binary reads the entries in its form and writes through its function.
        let oldForm = #"{"op":"upsert","todo":"# + bought + #","before":"# + milk + "}"
        let compared = "SELECT change::jsonb = '\(oldForm)'::jsonb FROM livestate_events WHERE id = 2001"
        #expect(try run(uri, on: loop, compared).rows == [["t"]])
        let old = try run(
            uri, on: loop,
            """
            SELECT seq, failure FROM livestate_write_batch_v5(
                '[{"op":"update","topic":"todos","id":1,"title":"Tea","key":"old-binary"}]')
            """)
        let seq = try #require(old.integer(0, 0))
        #expect(
            try run(
                uri, on: loop,
                "SELECT resource, key, body::jsonb ->> 'title', before::jsonb ->> 'title' FROM livestate_entries"
                    + " WHERE seq = \(seq)"
            ).rows == [["todos", "1", "Tea", "Milk"]])
    }

    @Test func aDatabaseADataFileFilledIsRefusedAndLeftAsItIs() throws {
        let loop = try EventLoop(name: "pg-data-file-test")
        loop.run()
        defer { loop.stop() }
        let uri = try freshDatabase(on: loop)
        try run(uri, on: loop, "CREATE TABLE livestate_doc_resources (name TEXT PRIMARY KEY)")
        let journal = PostgresJournal(uri: uri, loop: loop)
        defer { journal.stop() }
        #expect {
            _ = try journal.open()
        } throws: { error in
            ((error as? PostgresError)?.message ?? "").contains("a data file's resources")
        }
        #expect(try run(uri, on: loop, "SELECT to_regclass('todos') IS NULL").rows == [["t"]])
    }

    @Test func aDatabaseOfANewerSchemaVersionIsRefusedAndLeftAsItIs() throws {
        let loop = try EventLoop(name: "pg-newer-test")
        loop.run()
        defer { loop.stop() }
        // Written by a newer LiveState: version 7, whose tables this binary does not know.
        let uri = try database(version: 7, on: loop)
        let journal = PostgresJournal(uri: uri, loop: loop)
        defer { journal.stop() }
        #expect {
            _ = try journal.open()
        } throws: { error in
            let message = (error as? PostgresError)?.message ?? ""
            return message.contains("schema version 7") && message.contains("versions up to 6")
        }
        #expect(try run(uri, on: loop, "SELECT version FROM livestate_schema").rows == [["7"]])
        #expect(try run(uri, on: loop, "SELECT to_regclass('todos') IS NULL").rows == [["t"]])
    }
}
