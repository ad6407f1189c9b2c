import Dispatch
import Domain
import Foundation
import TestSupport
import Testing

@testable import LibEvent
@testable import Storage

/// A data file's journal on a real PostgreSQL (`TestPostgres`) shared by several journals, as by several
/// servers: one seed, batches planned on what the others committed, ids in commit order.
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresDocumentJournalTests {
    /// A new empty database on the test cluster (the seeds' journal tests use the cluster's own); its URI.
    private func freshDatabase() throws -> String {
        try DocumentDatabase().uri
    }

    @discardableResult
    private func run(on uri: String, _ sql: String) throws -> PostgresRows {
        try DocumentDatabase.run(on: uri, sql)
    }

    private let file = [
        DocumentRows(name: "posts", kind: .collection, items: [("1", #"{"title":"a","id":1}"#)]),
        DocumentRows(name: "profile", kind: .singular, items: [("", #"{"name":"p"}"#)]),
    ]

    @Test func journalsStartingTogetherSeedOnceAndReadTheSameState() throws {
        let uri = try freshDatabase()
        let journals = try (0..<3).map { _ in try PostgresDocumentJournal(uri: uri) }
        defer { for journal in journals { journal.stop() } }
        let seedings = LockedBox(0)
        let starts = LockedBox<[PostgresDocumentJournal.Start]>([])
        let file = self.file
        DispatchQueue.concurrentPerform(iterations: journals.count) { index in
            let start = try? journals[index].start(source: "db.json") {
                seedings.mutate { $0 += 1 }
                return file
            }
            if let start { starts.mutate { $0.append(start) } }
        }
        #expect(seedings.value == 1)
        #expect(starts.value.count == 3 && starts.value.filter(\.seeded).count == 1)
        for start in starts.value {
            #expect(start.resources.map(\.name) == ["posts", "profile"])
            #expect(start.resources[0].items.map(\.body) == [#"{"title":"a","id":1}"#])
            #expect(start.resources[1].items.map(\.key) == [""])
        }
        #expect(Set(starts.value.map(\.seq)).count == 3)
    }

    @Test func aBatchIsPlannedOnWhatOthersCommittedAndIdsFollowCommitOrder() throws {
        let uri = try freshDatabase()
        let first = try PostgresDocumentJournal(uri: uri)
        let second = try PostgresDocumentJournal(uri: uri)
        defer {
            first.stop()
            second.stop()
        }
        let file = self.file
        let one = try first.start(source: "db.json") { file }
        let two = try second.start(source: "db.json") {
            Issue.record("a seeded database is seeded again")
            return []
        }
        let deadline = DispatchTime.now() + 5
        let written = try first.commitBatch(after: one.seq, keys: [], until: deadline) { others, _ in
            #expect(others.isEmpty)
            return [JournalWrite(changes: [JournalChange(collection: "posts", id: "2", document: #"{"id":2}"#)])]
        }
        #expect(written.count == 1 && written[0] > two.seq)
        var seen: [JournalEntry] = []
        let next = try second.commitBatch(after: two.seq, keys: [], until: deadline) { others, _ in
            seen = others
            return [
                JournalWrite(changes: [
                    JournalChange(collection: "posts", id: "3", document: #"{"id":3}"#),
                    JournalChange(collection: "posts", id: "1", document: nil),
                ])
            ]
        }
        #expect(seen.map(\.change.id) == ["2"] && seen.map(\.seq) == written)
        #expect(next.count == 2 && next[0] > written[0] && next[1] > next[0])
        let followed = try first.committed(after: written[0], limit: 10)
        #expect(
            followed.map(\.change.id) == ["3", "1"] && followed[1].change.document == nil && followed.map(\.seq) == next
        )
        // Nothing is committed for a batch that plans no write.
        #expect(try first.commitBatch(after: next[1], keys: [], until: deadline) { _, _ in [] }.isEmpty)
        // A later start reads the current items, in the collection's order.
        let third = try PostgresDocumentJournal(uri: uri)
        defer { third.stop() }
        let three = try third.start(source: "db.json") { [] }
        #expect(three.resources[0].items.map(\.key) == ["2", "3"])
        #expect(three.seq > next[1])
    }

    @Test func keysAndItemsComeBackByteForByte() throws {
        let uri = try freshDatabase()
        let journal = try PostgresDocumentJournal(uri: uri)
        defer { journal.stop() }
        let key = "a\"b\\c\n\u{1}✓"
        let body = #"{"z":"x\"y\\n","a":[1e3,1.50,-0],"é":{"":null}}"#
        let file = [DocumentRows(name: "posts", kind: .collection, items: [(key, body)])]
        let start = try journal.start(source: "db.json") { file }
        #expect(start.resources[0].items.map(\.key) == [key] && start.resources[0].items.map(\.body) == [body])
        let seqs = try journal.commitBatch(after: start.seq, keys: [], until: .now() + 5) { _, _ in
            [
                JournalWrite(changes: [
                    JournalChange(collection: "posts", id: key, document: #"{"b":2,"a":[1.0e-7]}"#),
                    JournalChange(collection: "posts", id: "2", document: nil),
                ])
            ]
        }
        let entries = try journal.committed(after: start.seq, limit: 10)
        #expect(entries.map(\.seq) == seqs)
        #expect(
            entries.map(\.change.id) == [key, "2"] && entries.map(\.change.document) == [#"{"b":2,"a":[1.0e-7]}"#, nil])
    }

    /// Each entry keeps its item before it, with its place, so a restart can take the items back before its
    /// newest entries (`DocumentRewind`); within one batch, an item created and then changed stays where it was
    /// created, as a server applying the entries has it, and a key deleted and written again goes to the end.
    @Test func entriesKeepTheItemBeforeThemAndABatchPlacesWhatItCreatesWhereItDid() throws {
        let uri = try freshDatabase()
        let journal = try PostgresDocumentJournal(uri: uri)
        defer { journal.stop() }
        let start = try journal.start(source: "db.json") { file }
        let post = { (id: Int, title: String) in
            JournalChange(collection: "posts", id: String(id), document: #"{"id":\#(id),"title":"\#(title)"}"#)
        }
        let seqs = try journal.commitBatch(after: start.seq, keys: [], until: .now() + 5) { _, _ in
            [
                JournalWrite(changes: [post(2, "new")]),
                JournalWrite(changes: [post(3, "newer")]),
                JournalWrite(changes: [post(2, "changed")]),
                JournalWrite(changes: [post(1, "changed")]),
                JournalWrite(changes: [JournalChange(collection: "posts", id: "1", document: nil)]),
                JournalWrite(changes: [post(1, "again")]),
                JournalWrite(changes: [JournalChange(collection: "profile", id: nil, document: #"{"name":"q"}"#)]),
            ]
        }
        let after = try journal.start(source: "db.json", recent: (100, 1 << 20)) { [] }
        #expect(after.resources[0].items.map(\.key) == ["2", "3", "1"])
        #expect(after.resources[0].places == [seqs[0], seqs[1], seqs[5]])
        #expect(after.recent.map(\.seq) == seqs.reversed())
        #expect(
            after.recent.reversed().map(\.before) == [
                "null", "null", #"[\#(seqs[0]),{"id":2,"title":"new"}]"#, #"[-1,{"title":"a","id":1}]"#,
                #"[-1,{"id":1,"title":"changed"}]"#, "null", #"[-1,{"name":"p"}]"#,
            ])
        // Taken back before all of them: the file as it was seeded.
        let rewind = DocumentRewind(after.resources, recent: after.recent, count: 100)
        #expect(rewind.entries.map(\.seq) == seqs)
        #expect(rewind.resources.map { $0.items.map(\.body) } == file.map { $0.items.map(\.body) })
        // Before the last three only: post 1 back at its place before the delete (first, as seeded).
        let three = DocumentRewind(after.resources, recent: after.recent, count: 3)
        #expect(three.entries.map(\.seq) == Array(seqs.suffix(3)))
        #expect(three.resources[0].items.map(\.key) == ["1", "2", "3"])
        #expect(three.resources[0].items.first?.body == #"{"id":1,"title":"changed"}"#)
        #expect(three.resources[1].items.map(\.body) == [#"{"name":"p"}"#])
        // Bounded by bytes too: the newest entry always, the older ones while the newer ones take less.
        #expect(try journal.start(source: "db.json", recent: (100, 1)) { [] }.recent.map(\.seq) == [seqs[6]])
        let profileEntry = #"{"name":"q"}"#.utf8.count + #"[-1,{"name":"p"}]"#.utf8.count
        let two = try journal.start(source: "db.json", recent: (100, profileEntry + 1)) { [] }
        #expect(two.recent.map(\.seq) == [seqs[6], seqs[5]])
    }

    /// A write's key is kept with its first entry and read under the writers' lock by any server, so the same
    /// request sent again to another server is answered from it.
    @Test func aWritesKeyIsSeenByAnotherServer() throws {
        let uri = try freshDatabase()
        let first = try PostgresDocumentJournal(uri: uri)
        defer { first.stop() }
        let second = try PostgresDocumentJournal(uri: uri)
        defer { second.stop() }
        let one = try first.start(source: "db.json") { [DocumentRows(name: "posts", kind: .collection, items: [])] }
        let two = try second.start(source: "db.json") { [] }
        let key = WriteKey(key: "k-\u{1}\"✓", request: "DELETE /posts/1")
        let written = try first.commitBatch(after: one.seq, keys: [key.key], until: .now() + 5) { _, keyed in
            #expect(keyed.isEmpty)
            return [
                JournalWrite(
                    changes: [
                        JournalChange(collection: "posts", id: "1", document: nil),
                        JournalChange(collection: "comments", id: "7", document: nil),
                    ], key: key)
            ]
        }
        var found: [String: KeyedEntry] = [:]
        _ = try second.commitBatch(after: two.seq, keys: [key.key, "unknown"], until: .now() + 5) { _, keyed in
            found = keyed
            return []
        }
        #expect(found.count == 1)
        #expect(found[key.key]?.request == "DELETE /posts/1" && found[key.key]?.entry.seq == written[0])
        #expect(found[key.key]?.entry.change == JournalChange(collection: "posts", id: "1", document: nil))
    }

    /// A database of an older server keeps its entries in the table the seeds use too, ids going on.
    @Test func anOlderEntriesTableIsRenamedAndItsIdsGoOn() throws {
        let uri = try freshDatabase()
        try run(
            on: uri,
            """
            CREATE TABLE livestate_doc_entries (seq BIGSERIAL PRIMARY KEY, resource TEXT NOT NULL, key TEXT NOT NULL,
                body TEXT, committed_at TIMESTAMPTZ NOT NULL DEFAULT now());
            INSERT INTO livestate_doc_entries (resource, key, body) VALUES ('posts', '1', '{"id":1}');
            """)
        let journal = try PostgresDocumentJournal(uri: uri)
        defer { journal.stop() }
        let start = try journal.start(source: "db.json") { [DocumentRows(name: "posts", kind: .collection, items: [])] }
        #expect(start.seq > 1)
        #expect(
            try journal.committed(after: 0, limit: 10).map(\.change).first
                == JournalChange(collection: "posts", id: "1", document: #"{"id":1}"#))
        #expect(try run(on: uri, "SELECT to_regclass('livestate_doc_entries') IS NULL").rows == [["t"]])
    }

    /// The seeds' database is not taken for a data file's: both would read the same entries.
    @Test func theSeedsDatabaseIsRefused() throws {
        let uri = try freshDatabase()
        try run(on: uri, "CREATE TABLE livestate_counter (last_id BIGINT NOT NULL)")
        let journal = try PostgresDocumentJournal(uri: uri)
        defer { journal.stop() }
        #expect {
            _ = try journal.start(source: "db.json") { [] }
        } throws: { error in
            "\(error)".contains("the seeds' todos")
        }
        #expect(try run(on: uri, "SELECT to_regclass('livestate_entries') IS NULL").rows == [["t"]])
    }
}
