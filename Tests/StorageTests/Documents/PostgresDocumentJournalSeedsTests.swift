import Dispatch
import Domain
import Foundation
import Support
import TestSupport
import Testing

@testable import Storage

/// The seeds' data set in a document database (`PostgresDocumentJournal.DataSet.seeds`): a seeds' database written
/// by the binary from before (`integration/instances/fixtures/pg-seeds-v6.sql`, schema 6) taken into the document
/// tables with its ids, keys and the items before its entries, and one database never holding both data sets.
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresDocumentJournalSeedsTests {
    /// The steps a seeds' database records, in name order.
    private static let seedsSteps =
        "batch function,batch retry,batch scans by id,checkpoints,document tables,schema 6,seeds as documents"

    /// The fixture's todos, as the server encodes them.
    private let fixtureTodos = [
        Todo(id: 1, title: "Buy Milk"), Todo(id: 2, title: "Walk the dog", completed: true),
        Todo(id: 3, title: "Ünïcode ✓ title"), Todo(id: 5, title: "Keyed write"),
    ]
    /// The fixture's entries' ids: POSTs of todos 2, 3, 4 and (keyed) 5, a PATCH of 2, a DELETE of 4.
    private let fixtureSeqs = Array(Int64(27_413_232_495)...27_413_232_500)

    /// The resources the seeds' store names (what it seeds an empty database with).
    private func seeds() -> [DocumentRows] {
        [
            DocumentRows(name: "todos", kind: .collection, items: [("1", json(Todo(id: 1, title: "Buy Milk")))]),
            DocumentRows(name: "selection", kind: .singular, items: []),
            DocumentRows(name: "movies", kind: .singular, items: []),
            DocumentRows(name: "image", kind: .singular, items: []),
        ]
    }

    private func json(_ todo: Todo) -> String {
        (try? JSONCoding.text(todo)) ?? ""
    }

    @Test func aSeedsDatabaseOfSchema6IsTakenIntoTheDocumentTablesWithItsIdsAndKeys() throws {
        let database = try DocumentDatabase()
        try database.load(fixture: "pg-seeds-v6.sql")
        let journal = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { journal.stop() }
        let start = try journal.start(source: "seeds", recent: (100, 1 << 20)) { seeds() }
        #expect(!start.seeded)
        // The todos as they were, by id; the inputs the database had no entry of added, empty.
        #expect(start.resources.map(\.name) == ["todos", "selection", "movies", "image"])
        #expect(start.resources[0].items.map(\.key) == ["1", "2", "3", "5"])
        #expect(start.resources[0].items.map(\.body) == fixtureTodos.map(json))
        #expect(start.resources[1].kind == .singular && start.resources[1].items.isEmpty)
        // Every entry keeps its id (a Last-Event-ID from before resumes); the next ones continue after them.
        let entries = try journal.committed(after: 0, limit: 100)
        #expect(entries.map(\.seq) == fixtureSeqs)
        #expect(entries.map(\.change.id) == ["2", "3", "4", "5", "2", "4"])
        #expect(entries[4].change.document == json(fixtureTodos[1]) && entries[5].change.document == nil)
        #expect(start.seq == fixtureSeqs.last!)
        // A restart takes the todos back before every entry: the list as it was before the first POST.
        let rewind = DocumentRewind(start.resources, recent: start.recent, count: 100)
        #expect(rewind.entries.map(\.seq) == fixtureSeqs)
        #expect(rewind.resources[0].items.map(\.body) == [json(fixtureTodos[0])])
        // The seeds' replay walks back from the todos through the rows, each with its todo before it.
        var lists = [fixtureTodos]
        for row in PlacedItems.itemsBefore(start.recent) {
            let change = try #require(row.change.todoChange)
            let before = try row.before.map { try JSONDecoder().decode(Todo.self, from: Data($0.utf8)) }
            switch (change, before) {
            case (_, let before?): lists.insert(TodoChange.upsert(before).applied(to: lists[0]), at: 0)
            case (.upsert(let todo), nil): lists.insert(lists[0].filter { $0.id != todo.id }, at: 0)
            default: Issue.record("entry \(row.seq) cannot be undone")
            }
        }
        #expect(lists.count == fixtureSeqs.count + 1 && lists[0] == [fixtureTodos[0]])
        #expect(lists[4].map(\.id) == [1, 2, 3, 4, 5] && lists[4][1].completed == false)
        #expect(try journal.newest(of: "todos")?.seq == fixtureSeqs.last && journal.newest(of: "selection") == nil)
        #expect(
            try journal.keyed(["fixture-key-1", "unknown"]).mapValues(\.entry.seq) == ["fixture-key-1": fixtureSeqs[3]])
        // The key of the fixture's keyed POST answers from its entry, under the request the seeds' store names.
        var keyed: [String: KeyedEntry] = [:]
        let new = JournalChange(collection: "todos", id: "6", document: json(Todo(id: 6, title: "after")))
        let written = try journal.commitBatch(after: start.seq, keys: ["fixture-key-1"], until: .now() + 5) {
            _, found in
            keyed = found
            return [JournalWrite(changes: [new], key: WriteKey(key: "after-key", request: "todos"))]
        }
        #expect(keyed["fixture-key-1"]?.request == "todos")
        #expect(keyed["fixture-key-1"]?.entry.seq == fixtureSeqs[3])
        #expect(keyed["fixture-key-1"]?.entry.change.document == json(fixtureTodos[3]))
        #expect(written == [start.seq + 1])
        // Servers that start together start from the same id (their events that are not entries are numbered
        // after it alike), and a start writes no entry.
        let again = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { again.stop() }
        let other = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { other.stop() }
        #expect(try again.start(source: "seeds") { seeds() }.seq == written[0])
        #expect(try other.start(source: "seeds") { seeds() }.seq == written[0])
        #expect(try journal.committed(after: written[0], limit: 10).isEmpty)
        // The seeds' own tables are gone, and a LiveState that knows schema 6 at most refuses version 7.
        #expect(
            try database.run(
                """
                SELECT to_regclass('todos') IS NULL AND to_regclass('livestate_counter') IS NULL
                    AND to_regclass('livestate_events') IS NULL,
                    (SELECT max(version) FROM livestate_schema),
                    (SELECT string_agg(name, ',' ORDER BY name) FROM livestate_migrations)
                """
            ).rows == [["t", "7", Self.seedsSteps]])
    }

    /// What today's seeds' servers write (their batch function, which the fixture holds): inputs become singular
    /// resources holding their newest entry, each entry keeping the one before it, and a todo's title comes out
    /// spelled byte for byte as the server's encoder spells it.
    @Test func inputsBecomeSingularResourcesAndATitleIsSpelledAsTheServerEncodesIt() throws {
        let database = try DocumentDatabase()
        try database.load(fixture: "pg-seeds-v6.sql")
        let title = "a/b\"c\\d\u{1}\u{8}\u{c}\n\r\t\u{2028} é ✓ 😀 \u{7f}"
        let batch = try JSONCoding.text([
            BatchWrite(.insert(title: title, completed: false), key: "k-title"),
            BatchWrite(input: "selection", change: #"{"url":"a"}"#, key: "k-a", claim: false),
            BatchWrite(input: "movies", change: #"{"keyword":"x"}"#, key: "k-x", claim: false),
            BatchWrite(input: "selection", change: #"{"url":"b"}"#, key: "k-b", claim: false),
        ])
        try database.run("SELECT count(*) FROM livestate_write_batch_v6($w$\(batch)$w$::json)")
        let journal = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { journal.stop() }
        let start = try journal.start(source: "seeds", recent: (100, 1 << 20)) { seeds() }
        #expect(start.resources.map(\.name) == ["todos", "selection", "movies", "image"])
        #expect(start.resources[0].items.last?.body == json(Todo(id: 6, title: title)))
        #expect(
            start.resources[1].items.map(\.key) == [""] && start.resources[1].items.map(\.body) == [#"{"url":"b"}"#])
        #expect(start.resources[2].items.map(\.body) == [#"{"keyword":"x"}"#])
        let entries = try journal.committed(after: fixtureSeqs.last!, limit: 100)
        #expect(entries.map(\.change.collection) == ["todos", "selection", "movies", "selection"])
        #expect(entries.map(\.seq) == Array(fixtureSeqs.last! + 1...fixtureSeqs.last! + 4))
        // Taken back before every entry: the inputs unset, the todos as before the fixture's first POST.
        let rewind = DocumentRewind(start.resources, recent: start.recent, count: 100)
        #expect(rewind.entries.count == fixtureSeqs.count + 4)
        #expect(rewind.resources[1].items.isEmpty && rewind.resources[2].items.isEmpty)
        #expect(rewind.resources[0].items.map(\.key) == ["1"])
        // Before the newest selection only: the one before it.
        let one = DocumentRewind(start.resources, recent: start.recent, count: 1)
        #expect(one.resources[1].items.map(\.body) == [#"{"url":"a"}"#])
    }

    /// Where retention's deletions ended stays: a server that had not applied them is told it is behind, and a
    /// restart's rewind stops before an input whose earlier entries may be gone.
    @Test func retentionsGapStaysAndARewindStopsAtWhatItCannotKnow() throws {
        let database = try DocumentDatabase()
        try database.load(fixture: "pg-seeds-v6.sql")
        let below = fixtureSeqs[2]
        try database.run(
            """
            UPDATE livestate_counter SET pruned_below = \(below);
            DELETE FROM livestate_entries WHERE seq < \(below);
            SELECT count(*) FROM livestate_write_batch_v6(
                '[{"op":"input","topic":"selection","change":"{\\"url\\":\\"a\\"}","key":"k-a"}]'::json);
            """)
        let journal = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { journal.stop() }
        let start = try journal.start(source: "seeds", recent: (100, 1 << 20)) { seeds() }
        #expect(throws: JournalError.behind(prunedBelow: below)) {
            try journal.committed(after: fixtureSeqs[0], limit: 10)
        }
        #expect(try journal.committed(after: below - 1, limit: 10).map(\.seq).first == below)
        let rewind = DocumentRewind(start.resources, recent: start.recent, count: 100)
        #expect(rewind.entries.isEmpty && rewind.resources[1].items.map(\.body) == [#"{"url":"a"}"#])
    }

    /// The todos' largest id stays when that todo is deleted (before and after the database was taken into the
    /// document tables), so the seeds never give a deleted todo's id again, as their sequence did not.
    @Test func theTodosLargestIDOutlivesItsItem() throws {
        let database = try DocumentDatabase()
        try database.load(fixture: "pg-seeds-v6.sql")
        let delete = try JSONCoding.text([BatchWrite(.delete(id: 5), key: "k-delete")])
        try database.run("SELECT count(*) FROM livestate_write_batch_v6($w$\(delete)$w$::json)")
        let journal = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { journal.stop() }
        let start = try journal.start(source: "seeds") { seeds() }
        #expect(start.resources[0].items.map(\.key) == ["1", "2", "3"])
        #expect(start.resources[0].largestID == 5 && start.resources[1].largestID == nil)
        let put = JournalChange(collection: "todos", id: "7", document: json(Todo(id: 7, title: "seven")))
        let seqs = try journal.commitBatch(after: start.seq, keys: [], until: .now() + 5) { _, _ in
            [
                JournalWrite(changes: [put]),
                JournalWrite(changes: [JournalChange(collection: "todos", id: "7", document: nil)]),
            ]
        }
        #expect(seqs.count == 2)
        #expect(try journal.current().resources[0].largestID == 7)
        // A new database: the seeded todo's id.
        let fresh = try PostgresDocumentJournal(uri: try DocumentDatabase().uri, dataSet: .seeds)
        defer { fresh.stop() }
        #expect(try fresh.start(source: "seeds") { seeds() }.resources[0].largestID == 1)
    }

    /// A seeds' database of an older version (4: no item before an entry, no marked insert) is brought to 6 by
    /// the seeds' former script, then moved: its todos and entries stay, and a restart's rewind stops before
    /// entries it cannot undo. One of a version above 6 from before the steps were recorded is refused.
    @Test func aSeedsDatabaseOfVersion4IsBroughtTo6AndMovedAndOneAbove6IsRefused() throws {
        let database = try DocumentDatabase()
        try database.run(
            """
            CREATE TABLE livestate_schema (version integer NOT NULL); INSERT INTO livestate_schema VALUES (4);
            CREATE TABLE todos (id BIGSERIAL PRIMARY KEY, title TEXT NOT NULL, completed BOOLEAN NOT NULL DEFAULT false);
            CREATE TABLE livestate_counter (only_row BOOLEAN PRIMARY KEY DEFAULT true CHECK (only_row),
                last_id BIGINT NOT NULL, pruned_below BIGINT NOT NULL DEFAULT 0);
            CREATE TABLE livestate_events (id BIGINT PRIMARY KEY, topic TEXT NOT NULL, change TEXT NOT NULL,
                committed_at TIMESTAMPTZ NOT NULL DEFAULT now(), write_key TEXT UNIQUE);
            INSERT INTO todos (title, completed) VALUES ('Old', true);
            INSERT INTO livestate_counter (last_id) VALUES (1000);
            INSERT INTO livestate_events (id, topic, change) VALUES
                (999, 'todos', '{"op":"upsert","todo":{"id":1,"title":"Old","completed":false}}'),
                (1000, 'todos', '{"op":"upsert","todo":{"id":1,"title":"Old","completed":true}}');
            """)
        let journal = try PostgresDocumentJournal(uri: database.uri, dataSet: .seeds)
        defer { journal.stop() }
        let start = try journal.start(source: "seeds", recent: (100, 1 << 20)) { seeds() }
        #expect(start.resources[0].items.map(\.body) == [json(Todo(id: 1, title: "Old", completed: true))])
        #expect(start.seq == 1000 && start.resources[0].largestID == 1)
        #expect(try journal.committed(after: 0, limit: 10).map(\.seq) == [999, 1000])
        #expect(DocumentRewind(start.resources, recent: start.recent, count: 100).entries.isEmpty)
        #expect(PlacedItems.itemsBefore(start.recent).isEmpty)
        #expect(
            try database.run("SELECT string_agg(name, ',' ORDER BY name) FROM livestate_migrations").rows
                == [[Self.seedsSteps]])

        let newer = try DocumentDatabase()
        try newer.run(
            """
            CREATE TABLE livestate_schema (version integer NOT NULL); INSERT INTO livestate_schema VALUES (8);
            CREATE TABLE livestate_counter (last_id BIGINT NOT NULL);
            """)
        let refusing = try PostgresDocumentJournal(uri: newer.uri, dataSet: .seeds)
        defer { refusing.stop() }
        #expect {
            _ = try refusing.start(source: "seeds") { seeds() }
        } throws: { error in
            "\(error)".contains("newer than 6")
        }
        #expect(try newer.run("SELECT to_regclass('livestate_migrations') IS NULL").rows == [["t"]])
    }

    /// One database holds one data set: a data file's store refuses the seeds' database (before and after the
    /// seeds' store took it), the seeds' store a data file's, each with one line and nothing changed.
    @Test func aDatabaseOfTheOtherDataSetIsRefused() throws {
        let seedsDatabase = try DocumentDatabase()
        try seedsDatabase.load(fixture: "pg-seeds-v6.sql")
        try expectRefused(seedsDatabase, as: .file, "the seeds' todos")
        #expect(try seedsDatabase.run("SELECT to_regclass('livestate_migrations') IS NULL").rows == [["t"]])
        let seedsStore = try PostgresDocumentJournal(uri: seedsDatabase.uri, dataSet: .seeds)
        _ = try seedsStore.start(source: "seeds") { seeds() }
        seedsStore.stop()
        try expectRefused(seedsDatabase, as: .file, "the seeds' todos")

        let fileDatabase = try DocumentDatabase()
        try fileDatabase.load(fixture: "pg-file.sql")
        try expectRefused(fileDatabase, as: .seeds, "a data file's resources")
        #expect(try fileDatabase.run("SELECT to_regclass('livestate_migrations') IS NULL").rows == [["t"]])
        // The data file's own store takes it, and the seeds' store still refuses it after its steps.
        let fileStore = try PostgresDocumentJournal(uri: fileDatabase.uri)
        let file = try fileStore.start(source: "db.json") { [] }
        fileStore.stop()
        #expect(!file.seeded && file.resources.map(\.name).contains("posts"))
        #expect(
            try fileDatabase.run("SELECT string_agg(name, ',' ORDER BY name) FROM livestate_migrations").rows
                == [["batch function,batch retry,batch scans by id,checkpoints,document tables"]])
        try expectRefused(fileDatabase, as: .seeds, "a data file's resources")

        // New databases: whichever store seeded one keeps it.
        let fresh = try DocumentDatabase()
        let seeded = try PostgresDocumentJournal(uri: fresh.uri, dataSet: .seeds)
        let first = try seeded.start(source: "seeds") { seeds() }
        seeded.stop()
        #expect(first.seeded && first.resources[0].items.map(\.key) == ["1"])
        try expectRefused(fresh, as: .file, "the seeds' todos")
    }

    private func expectRefused(
        _ database: DocumentDatabase, as dataSet: PostgresDocumentJournal.DataSet, _ reason: String
    ) throws {
        let journal = try PostgresDocumentJournal(uri: database.uri, dataSet: dataSet)
        defer { journal.stop() }
        #expect {
            _ = try journal.start(source: "db.json") { [] }
        } throws: { error in
            "\(error)".contains(reason)
        }
    }
}
