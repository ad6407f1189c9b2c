import Foundation
import Storage
import Testing

@Suite struct SQLiteDocumentJournalTests {
    private func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).livestate").path
    }

    @Test func whatIsCommittedIsThereAfterReopening() throws {
        let file = path()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        do {
            let journal = try SQLiteDocumentJournal(path: file)
            #expect(try journal.load() == nil)
            try journal.seed(
                [
                    DocumentResourceRecord(
                        name: "posts", kind: "collection",
                        documents: [
                            StoredRow(key: "1", position: 1, body: #"{"id":1}"#)
                        ])
                ], fileHash: "h")
            let seqs = try journal.commit([
                DocumentWrite(resource: "posts", key: "2", position: 2, body: #"{"id":2}"#),
                DocumentWrite(resource: "posts", key: "1", position: 0, body: nil),
            ])
            #expect(seqs.count == 2 && seqs[1] == seqs[0] + 1 && seqs[0] > journal.startSeq)
        }
        let reopened = try SQLiteDocumentJournal(path: file)
        let state = try #require(try reopened.load())
        #expect(state.resources.map(\.name) == ["posts"])
        #expect(state.resources[0].documents.map(\.body) == [#"{"id":2}"#])
        #expect(state.fileHash == "h")
        let unshown = try reopened.entries(after: state.fileSeq)
        #expect(unshown.map(\.key) == ["2", "1"] && unshown[1].body == nil)
        #expect(reopened.startSeq > unshown[1].seq)
    }

    @Test func aSecondServerIsRefused() throws {
        let file = path()
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let first = try SQLiteDocumentJournal(path: file)
        #expect(throws: (any Error).self) { try SQLiteDocumentJournal(path: file) }
        _ = first
    }
}
