import Dispatch
import Domain
import Foundation
import TestSupport
import Testing

@testable import LibEvent
@testable import Storage

/// A batch's two round trips on a real PostgreSQL (`TestPostgres`): its values go in as literals of the simple
/// protocol, byte for byte, and its ids are the ones read under the writers' lock or the batch is refused.
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL binaries on this machine"))
struct PostgresDocumentBatchTests {
    private let file = [DocumentRows(name: "posts", kind: .collection, items: [("1", #"{"id":1}"#)])]

    @Test func valuesHoldingTheLiteralsTagComeBackByteForByteAndTheirKeyAnswersAgain() throws {
        let database = try DocumentDatabase()
        let journal = try PostgresDocumentJournal(uri: database.uri)
        defer { journal.stop() }
        let start = try journal.start(source: "db.json") { file }
        let key = "$v$'; COMMIT; $v1$"
        let body = #"{"title":"$v$ $v1$ $v2$ '' \\ ","id":"$v$"}"#
        let write = WriteKey(key: key, request: "POST /posts $v$")
        let seqs = try journal.commitBatch(after: start.seq, keys: [key], until: .now() + 5) { _, keyed in
            #expect(keyed.isEmpty)
            return [JournalWrite(changes: [JournalChange(collection: "posts", id: "$v$", document: body)], key: write)]
        }
        #expect(seqs.count == 1)
        var found: [String: KeyedEntry] = [:]
        let none = try journal.commitBatch(after: seqs[0], keys: [key, "other"], until: .now() + 5) { _, keyed in
            found = keyed
            return []
        }
        #expect(none.isEmpty && Array(found.keys) == [key])
        #expect(found[key]?.request == write.request && found[key]?.entry.seq == seqs[0])
        #expect(found[key]?.entry.change.document == body && found[key]?.entry.change.id == "$v$")
        let restarted = try PostgresDocumentJournal(uri: database.uri)
        defer { restarted.stop() }
        let items = try restarted.start(source: "db.json") { [] }.resources[0].items
        #expect(items.map(\.key) == ["1", "$v$"] && items.last?.body == body)
    }

    @Test func aBatchWhoseIdsWereTakenWithoutTheLockIsRefusedAndTheNextCommits() throws {
        let database = try DocumentDatabase()
        let journal = try PostgresDocumentJournal(uri: database.uri)
        defer { journal.stop() }
        let start = try journal.start(source: "db.json") { file }
        let post = JournalWrite(changes: [JournalChange(collection: "posts", id: "2", document: #"{"id":2}"#)])
        #expect {
            _ = try journal.commitBatch(after: start.seq, keys: [], until: .now() + 5) { _, _ in
                // NB: another session takes an id between the batch's read and its write.
                _ = try? database.run("SELECT nextval(pg_get_serial_sequence('livestate_entries', 'seq'))")
                return [post]
            }
        } throws: { error in
            guard case .unavailable(let message) = error as? JournalError else { return false }
            return message.contains("journal ids moved")
        }
        #expect(try journal.committed(after: start.seq, limit: 10).isEmpty)
        let seqs = try journal.commitBatch(after: start.seq, keys: [], until: .now() + 5) { _, _ in [post, post] }
        let entries = try journal.committed(after: start.seq, limit: 10)
        #expect(seqs.count == 2 && seqs[1] == seqs[0] + 1 && entries.map(\.seq) == seqs)
    }

    /// A batch planned on what this server had, while another server committed an entry and a write under
    /// one of its keys, is planned again on them: the entry applied first, the key answered from its entry,
    /// and the rest committed after the other server's entry.
    @Test func aBatchPlannedWhileAnotherServerWroteIsPlannedAgainOnWhatItWrote() throws {
        let (database, journal, other, mine) = try twoServers()
        defer {
            journal.stop()
            other.stop()
            withExtendedLifetime(database) {}
        }
        let key = WriteKey(key: "sent-twice", request: "POST /posts")
        var theirs = try other.commitBatch(after: mine, keys: [], until: .now() + 5) { _, _ in [Self.post("3")] }
        theirs += try other.commitBatch(after: theirs[0], keys: [key.key], until: .now() + 5) { _, _ in
            [JournalWrite(changes: Self.post("4").changes, key: key)]
        }
        var calls: [(others: [Int64], keyed: [String])] = []
        let seqs = try journal.commitBatch(after: mine, keys: [key.key], until: .now() + 5) { others, keyed in
            calls.append((others.map(\.seq), keyed.keys.sorted()))
            return keyed[key.key] == nil ? [JournalWrite(changes: Self.post("5").changes, key: key)] : [Self.post("6")]
        }
        #expect(calls.map(\.others) == [[], theirs] && calls.last?.keyed == [key.key])
        let entries = try journal.committed(after: mine, limit: 10)
        #expect(entries.map(\.seq) == theirs + seqs && seqs.count == 1 && entries.last?.change.id == "6")
    }

    /// A batch whose every attempt without the lock finds another server's new entry is planned under the lock
    /// in the end, on every entry it had not been given yet: one the last attempt read and no plan got would
    /// leave this server without it, and its next id would be one the other server had given.
    @Test func aBatchPlannedUnderTheLockAfterItsAttemptsGetsEveryEntryTheyRead() throws {
        let (database, journal, other, mine) = try twoServers()
        defer {
            journal.stop()
            other.stop()
            withExtendedLifetime(database) {}
        }
        var theirs: [Int64] = []
        var given: [Int64] = []
        var calls = 0
        let seqs = try journal.commitBatch(after: mine, keys: [], until: .now() + 5) { others, _ in
            calls += 1
            given += others.map(\.seq)
            // NB: another server commits while each attempt without the lock is planned (not under the lock,
            // which it would wait for).
            if calls <= PostgresDocumentJournal.optimisticTries {
                theirs += try! other.commitBatch(after: theirs.last ?? mine, keys: [], until: .now() + 5) { _, _ in
                    [Self.post("\(10 + calls)")]
                }
            }
            return [Self.post("\(20 + calls)")]
        }
        #expect(calls == PostgresDocumentJournal.optimisticTries + 1)
        #expect(given == theirs && seqs.count == 1 && seqs[0] == theirs.last! + 1)
        let tally = journal.batchTally
        #expect(tally.moved == PostgresDocumentJournal.optimisticTries && tally.lockedAfterTries == 1)
    }

    /// A journal counts how its batches went in (logged at `stop`): at once on which attempt, under the lock
    /// from the start or after its attempts, and its catch-ups' reads with and without entries.
    @Test func aJournalCountsHowItsBatchesWentIn() throws {
        let (database, journal, other, mine) = try twoServers()
        defer {
            journal.stop()
            other.stop()
            withExtendedLifetime(database) {}
        }
        // NB: the first batch (in `twoServers`) knew no next id: under the lock.
        var expected = PostgresDocumentJournal.BatchTally(writes: 1, commits: 1, largest: 1, lockedAtFirst: 1)
        #expect(journal.batchTally == expected)
        let second = try journal.commitBatch(after: mine, keys: [], until: .now() + 5) { _, _ in
            [Self.post("3"), Self.post("4")]
        }
        (expected.writes, expected.commits, expected.largest) = (3, 2, 2)
        expected.atOnce[0] += 1
        #expect(journal.batchTally == expected)
        let theirs = try other.commitBatch(after: second[1], keys: [], until: .now() + 5) { _, _ in [Self.post("5")] }
        _ = try journal.commitBatch(after: second[1], keys: [], until: .now() + 5) { _, _ in [Self.post("6")] }
        (expected.writes, expected.commits, expected.moved) = (4, 3, 1)
        expected.atOnce[1] += 1
        #expect(journal.batchTally == expected)
        #expect(try journal.committed(after: mine, limit: 10).count == 4)
        #expect(try journal.committed(after: theirs[0] + 1, limit: 10).isEmpty)
        (expected.catchUps, expected.emptyCatchUps) = (2, 1)
        #expect(journal.batchTally == expected)
        #expect(journal.batchTally.line("writes").contains("at once by attempt 1/1/0, 1 attempts found"))
    }

    /// A catch-up (the store's read of what other servers committed, on the one connection between two
    /// batches) is needed only when another server announced an entry after the one it starts from, or a
    /// wake-up named none (the start, a reconnect, the poll): a NOTIFY for entries this server has applied
    /// already costs no round trip.
    @Test func aCatchUpIsNeededOnlyWhenAnotherServerAnnouncedEntriesAfterItsStart() throws {
        let (database, journal, other, mine) = try twoServers()
        defer {
            journal.stop()
            other.stop()
            withExtendedLifetime(database) {}
        }
        // NB: the connection's opening named no entry: the first catch-up reads.
        #expect(!journal.announcesNothing(after: mine))
        #expect(try journal.committed(after: mine, limit: 10).isEmpty)
        #expect(journal.announcesNothing(after: mine))
        let theirs = try other.commitBatch(after: mine, keys: [], until: .now() + 5) { _, _ in
            [Self.post("3"), Self.post("4")]
        }
        #expect(eventually(timeout: 5) { !journal.announcesNothing(after: mine) })
        #expect(!journal.announcesNothing(after: theirs[0]))
        #expect(try journal.committed(after: mine, limit: 10).map(\.seq) == theirs)
        #expect(journal.announcesNothing(after: theirs[1]))
        // NB: a wake-up that names no entry (the poll, a reconnect) reads again.
        journal.loop.execute { journal.wake(announcing: nil) }
        #expect(eventually(timeout: 5) { !journal.announcesNothing(after: theirs[1]) })
        #expect(try journal.committed(after: theirs[1], limit: 10).isEmpty)
        #expect(journal.announcesNothing(after: theirs[1]))
        #expect(journal.batchTally.catchUps == 3 && journal.batchTally.skippedCatchUps >= 3)
    }

    /// Two servers' journals on one new database, the first having committed one batch (so its next batch is
    /// planned without reading first), and that batch's id.
    private func twoServers() throws -> (DocumentDatabase, PostgresDocumentJournal, PostgresDocumentJournal, Int64) {
        let database = try DocumentDatabase()
        let journal = try PostgresDocumentJournal(uri: database.uri)
        let other = try PostgresDocumentJournal(uri: database.uri)
        let start = try journal.start(source: "db.json") { file }
        _ = try other.start(source: "db.json") { [] }
        let mine = try journal.commitBatch(after: start.seq, keys: [], until: .now() + 5) { _, _ in [Self.post("2")] }
        return (database, journal, other, mine[0])
    }

    /// A write of one new post `id`.
    private static func post(_ id: String) -> JournalWrite {
        JournalWrite(changes: [JournalChange(collection: "posts", id: id, document: #"{"id":"\#(id)"}"#)])
    }

    /// The entries retention keeps are not read by a batch: its reads of the entries after the server's newest
    /// find them by id, also once the functions' statements run on their generic plans (after five calls).
    @Test func batchesReadNoneOfTheEntriesBeforeTheServersNewest() throws {
        let database = try DocumentDatabase()
        let journal = try PostgresDocumentJournal(uri: database.uri)
        let start = try journal.start(source: "db.json") { file }
        let kept = 20_000
        try database.run(
            """
            INSERT INTO livestate_entries (seq, resource, key, body, before)
            SELECT nextval(pg_get_serial_sequence('livestate_entries', 'seq')), 'posts', '1', '{"id":1}', '[1,{"id":1}]'
            FROM generate_series(1, \(kept));
            ANALYZE livestate_entries
            """)
        var newest = try #require(database.run("SELECT max(seq) FROM livestate_entries").integer())
        #expect(newest > start.seq)
        let before = try Self.entriesScanned(database)
        for number in 1...12 {
            let post = JournalChange(collection: "posts", id: "1", document: #"{"id":1,"n":\#(number)}"#)
            let key = WriteKey(key: "k\(number)", request: "PATCH /posts/1")
            let seqs = try journal.commitBatch(after: newest, keys: [key.key], until: .now() + 5) { others, _ in
                #expect(others.isEmpty)
                return [JournalWrite(changes: [post], key: key)]
            }
            newest = try #require(seqs.last)
        }
        journal.stop()
        // NB: a session's counts reach the statistics when it ends.
        #expect(
            eventually(timeout: 10) {
                (try? database.run(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                ).integer()) == 0
            })
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try Self.entriesScanned(database) - before < Int64(kept))
    }

    /// The rows of `livestate_entries` read by sequential scans so far.
    private static func entriesScanned(_ database: DocumentDatabase) throws -> Int64 {
        try #require(
            database.run("SELECT seq_tup_read FROM pg_stat_user_tables WHERE relname = 'livestate_entries'").integer())
    }
}
