import Domain
import Foundation
import Testing

@testable import Storage

@Suite struct SQLiteDocumentJournalTests {
    private func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).livestate").path
    }

    private func remove(_ file: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
    }

    /// What a restart needs: the file's mark, and the entries after it in order, deletes included.
    @Test func entriesAfterTheFilesMarkSurviveAReopen() throws {
        let file = path()
        defer { remove(file) }
        let seqs: [Int64]
        do {
            let journal = try SQLiteDocumentJournal(path: file)
            #expect(try journal.fileMark() == nil)
            try journal.markFile(seq: journal.startSeq, hash: "h")
            seqs = try journal.commit([
                JournalWrite(changes: [JournalChange(collection: "posts", id: "2", document: #"{"id":2}"#)]),
                JournalWrite(changes: [JournalChange(collection: "posts", id: "1", document: nil)]),
            ])
            #expect(seqs.count == 2 && seqs[1] == seqs[0] + 1 && seqs[0] > journal.startSeq)
        }
        let reopened = try SQLiteDocumentJournal(path: file)
        let mark = try #require(try reopened.fileMark())
        #expect(mark.hash == "h" && mark.seq < seqs[0])
        let unshown = try reopened.entries(after: mark.seq)
        #expect(
            unshown.map(\.change.id) == ["2", "1"] && unshown[0].change.document == #"{"id":2}"#
                && unshown[1].change.document == nil)
        #expect(reopened.startSeq > seqs[1])
    }

    /// The mark of a file about to be renamed into place survives a reopen until the file's mark is written,
    /// which drops it; a journal with no mark yet gets one at entry 0 that no file's bytes hash to.
    @Test func aPendingMarkIsKeptUntilTheFilesMark() throws {
        let file = path()
        defer { remove(file) }
        do {
            let journal = try SQLiteDocumentJournal(path: file)
            try journal.markPendingFile(seq: 3, hash: "new")
            #expect(try journal.fileMark() == SQLiteDocumentJournal.FileMark(seq: 0, hash: ""))
            try journal.markFile(seq: 3, hash: "new")
            try journal.markPendingFile(seq: 5, hash: "newer")
        }
        let reopened = try SQLiteDocumentJournal(path: file)
        #expect(try reopened.fileMark() == SQLiteDocumentJournal.FileMark(seq: 3, hash: "new"))
        #expect(try reopened.pendingFileMark() == SQLiteDocumentJournal.FileMark(seq: 5, hash: "newer"))
        try reopened.markFile(seq: 5, hash: "newer")
        #expect(try reopened.pendingFileMark() == nil)
        #expect(try reopened.fileMark() == SQLiteDocumentJournal.FileMark(seq: 5, hash: "newer"))
    }

    /// Retention never drops an entry the file does not show yet.
    @Test func retentionKeepsWhatTheFileDoesNotShow() throws {
        let file = path()
        defer { remove(file) }
        let journal = try SQLiteDocumentJournal(path: file, retention: 1)
        try journal.markFile(seq: journal.startSeq, hash: "h")
        for round in 0..<1100 {
            _ = try journal.commit([
                JournalWrite(changes: [JournalChange(collection: "posts", id: String(round), document: "{}")])
            ])
        }
        #expect(try journal.entries(after: journal.startSeq).count == 1100)
    }

    @Test func aSecondServerIsRefused() throws {
        let file = path()
        defer { remove(file) }
        let first = try SQLiteDocumentJournal(path: file)
        #expect(throws: (any Error).self) { try SQLiteDocumentJournal(path: file) }
        _ = first
    }

    /// A write sent again with its `Idempotency-Key` is answered from the write's first entry, also after a
    /// restart; the file itself never takes one key twice.
    /// A journal truncated, or written by another program, under an open journal refuses every later commit
    /// (and says why); a journal left alone goes on.
    @Test(arguments: ["truncate", "write", "truncate the WAL", "nothing"])
    func aFileChangedUnderTheJournalRefusesCommits(change: String) throws {
        let file = path()
        defer { remove(file) }
        let journal = try SQLiteDocumentJournal(path: file)
        let write = JournalWrite(changes: [JournalChange(collection: "posts", id: "1", document: "{}")], key: nil)
        _ = try journal.commit([write])
        switch change {
        case "truncate": #expect(truncate(file, 0) == 0)
        case "truncate the WAL": #expect(truncate(file + "-wal", 0) == 0)
        case "write":
            let handle = try #require(FileHandle(forWritingAtPath: file))
            try handle.seek(toOffset: 100)
            try handle.write(contentsOf: [0x01])
            try handle.close()
        default: break
        }
        for _ in 0..<2 {
            if change == "nothing" {
                _ = try journal.commit([write])
            } else {
                #expect { try journal.commit([write]) } throws: { "\($0)".contains("writes are refused") }
            }
        }
    }

    @Test func aWritesKeyIsKeptWithItsFirstEntryAcrossAReopen() throws {
        let file = path()
        defer { remove(file) }
        let post = JournalChange(collection: "posts", id: "2", document: #"{"id":2}"#)
        let key = WriteKey(key: "k-1", request: "POST /posts")
        let seqs: [Int64]
        do {
            let journal = try SQLiteDocumentJournal(path: file)
            seqs = try journal.commitBatch(after: journal.startSeq, keys: [key.key], until: .now() + 5) { _, keyed in
                #expect(keyed.isEmpty)
                return [
                    JournalWrite(
                        changes: [post, JournalChange(collection: "comments", id: "9", document: nil)], key: key),
                    JournalWrite(changes: [JournalChange(collection: "posts", id: "3", document: "{}")]),
                ]
            }
            #expect(seqs.count == 3)
            #expect(throws: JournalError.self) { try journal.commit([JournalWrite(changes: [post], key: key)]) }
        }
        let reopened = try SQLiteDocumentJournal(path: file)
        let found = try reopened.keyed([key.key, "k-2"])
        #expect(found == [key.key: KeyedEntry(entry: JournalEntry(seq: seqs[0], change: post), request: "POST /posts")])
        // The refused second commit left nothing behind.
        #expect(try reopened.entries(after: 0).map(\.seq) == seqs)
    }

    /// A journal written before writes kept their keys (and the file's mark its newest entry) gets the columns
    /// at its next start, entries and mark intact.
    @Test func aJournalWrittenBeforeKeysIsMigrated() throws {
        let file = path()
        defer { remove(file) }
        do {
            let older = try SQLiteConnection(path: file)
            try older.execute(
                """
                CREATE TABLE livestate_doc_entries(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, key TEXT NOT NULL, body TEXT);
                INSERT INTO livestate_doc_entries(resource, key, body) VALUES ('posts', '1', '{"id":1}');
                CREATE TABLE livestate_doc_file(
                    id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);
                INSERT INTO livestate_doc_file(id, seq, hash) VALUES (1, 0, 'h');
                """)
        }
        do {
            let journal = try SQLiteDocumentJournal(path: file)
            #expect(try journal.fileMark() == SQLiteDocumentJournal.FileMark(seq: 0, hash: "h"))
            #expect(
                try journal.entries(after: 0).map(\.change) == [
                    JournalChange(collection: "posts", id: "1", document: #"{"id":1}"#)
                ])
            let key = WriteKey(key: "k", request: "PATCH /profile")
            let seqs = try journal.commit([
                JournalWrite(changes: [JournalChange(collection: "profile", id: nil, document: "{}")], key: key)
            ])
            #expect(try journal.keyed(["k"])["k"]?.entry.seq == seqs[0])
            #expect(try journal.keyed(["k"])["k"]?.entry.change.id == nil)
            // The entries moved into the table the seeds use too, and their ids go on after the older ones.
            #expect(journal.startSeq == 2 && seqs == [3])
        }
        // Read once the journal is closed: it holds its file exclusively while open.
        let check = try SQLiteConnection(path: file)
        #expect(
            try check.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'livestate_%entries'")
                .map { $0.first?.text } == ["livestate_entries"])
    }

    /// The seeds' file holds the seeds' entries in the same table: it is not taken as a data file's journal.
    @Test func theSeedsFileIsRefused() throws {
        let file = path()
        defer { remove(file) }
        do { try SQLiteSchema.migrate(try SQLiteConnection(path: file)) }
        #expect {
            _ = try SQLiteDocumentJournal(path: file)
        } throws: { error in
            "\(error)".contains("the seeds' data")
        }
    }

    /// The events an older LiveState's clean stop saved come back once, with the state they lead to, across a
    /// reopen (this one saves none: a start makes them again from the items before the entries).
    @Test func savedEventsOfAnOlderServerAreTakenOnce() throws {
        let file = path()
        defer { remove(file) }
        do { _ = try SQLiteDocumentJournal(path: file) }
        do {
            let older = try SQLiteConnection(path: file)
            try older.execute(
                """
                INSERT INTO livestate_doc_events(id, topic, frame, diff) VALUES
                    (65536, 'posts', 'id: 65536\ndata: []\n\n', NULL), (131072, 'profile', 'data: {}\n\n', 'd ✓');
                INSERT INTO livestate_doc_events_at(only_row, seq, hash) VALUES (1, 8, 'h2');
                """)
        }
        let reopened = try SQLiteDocumentJournal(path: file)
        let taken = try #require(try reopened.takeEvents())
        #expect(
            taken.seq == 8 && taken.hash == "h2"
                && taken.events == [
                    SQLiteDocumentJournal.SavedEvent(
                        id: 65536, topic: "posts", frame: "id: 65536\ndata: []\n\n", diffFrame: nil),
                    SQLiteDocumentJournal.SavedEvent(
                        id: 131072, topic: "profile", frame: "data: {}\n\n", diffFrame: "d ✓"),
                ])
        #expect(try reopened.takeEvents() == nil)
    }

    /// Each entry keeps the item before it as the store gave it, which a restart reads back newest first; the
    /// floor keeps a restart from undoing entries up to it.
    @Test func theItemBeforeEachEntryIsKeptAndTheFloorBoundsTheRewind() throws {
        let file = path()
        defer { remove(file) }
        let seqs: [Int64]
        do {
            let journal = try SQLiteDocumentJournal(path: file)
            try journal.markFile(seq: journal.startSeq, hash: "h")
            var write = JournalWrite(changes: [
                JournalChange(collection: "posts", id: "1", document: nil),
                JournalChange(collection: "posts", id: "2", document: #"{"id":2}"#),
            ])
            write.itemsBefore = [#"[null,{"id":1}]"#, "null"]
            seqs = try journal.commit([write])
            #expect(try journal.rewindFloor() == 0)
            try journal.keepFromRewinding(upTo: seqs[0])
        }
        let reopened = try SQLiteDocumentJournal(path: file)
        #expect(try reopened.rewindFloor() == seqs[0])
        let recent = try reopened.recent(limit: 10, bytes: 1 << 20)
        #expect(recent.map(\.seq) == seqs.reversed())
        #expect(recent.map(\.before) == ["null", #"[null,{"id":1}]"#])
    }

    /// A journal of an older LiveState (its entries keep no item before them) gets the step `items before
    /// entries`: its floor is its newest entry, so a restart undoes none of them; and `file mark without top`,
    /// which drops the mark's `top`.
    @Test func aJournalOfAnOlderServerGetsItsFloorAtItsNewestEntry() throws {
        let file = path()
        defer { remove(file) }
        do {
            let older = try SQLiteConnection(path: file)
            try older.execute(
                """
                CREATE TABLE livestate_doc_file(
                    id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL, top INTEGER);
                INSERT INTO livestate_doc_file(id, seq, hash, top) VALUES (1, 1, 'h', 1);
                CREATE TABLE livestate_entries(
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, resource TEXT NOT NULL, key TEXT NOT NULL, body TEXT,
                    before TEXT, write_key TEXT, write_request TEXT);
                INSERT INTO livestate_entries(resource, key, body) VALUES ('', '', NULL), ('posts', '1', '{"id":1}');
                """)
        }
        let journal = try SQLiteDocumentJournal(path: file)
        #expect(try journal.rewindFloor() == 2)
        #expect(try journal.entries(after: 1).map(\.seq) == [2])
        let steps = try journal.withConnection { connection throws(JournalError) in
            try connection.query("SELECT name FROM livestate_migrations ORDER BY rowid").compactMap { $0.first?.text }
        }
        #expect(steps.suffix(3) == ["items before entries", "file mark without top", "pending file mark"])
        #expect(steps.count == 7)
        let columns = try journal.withConnection { connection throws(JournalError) in
            try connection.query("PRAGMA table_info(livestate_doc_file)").compactMap { $0[1].text }
        }
        #expect(!columns.contains("top") && columns.contains("floor") && columns.contains("pending_hash"))
    }
}
