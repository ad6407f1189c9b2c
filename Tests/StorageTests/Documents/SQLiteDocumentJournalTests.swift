import Domain
import Foundation
import Storage
import Testing

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
                JournalChange(collection: "posts", id: "2", document: #"{"id":2}"#),
                JournalChange(collection: "posts", id: "1", document: nil),
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

    /// Retention never drops an entry the file does not show yet.
    @Test func retentionKeepsWhatTheFileDoesNotShow() throws {
        let file = path()
        defer { remove(file) }
        let journal = try SQLiteDocumentJournal(path: file, retention: 1)
        try journal.markFile(seq: journal.startSeq, hash: "h")
        for round in 0..<1100 {
            _ = try journal.commit([JournalChange(collection: "posts", id: String(round), document: "{}")])
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
}
