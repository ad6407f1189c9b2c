import Dispatch
import Domain
import Foundation
import HTTP
import Storage
import StrictJSON
import Testing

@testable import Server

/// `DocumentRewind` in a data file's order (`FileOrderItems`) on what a `DocumentStore` gave a real SQLite
/// journal: undoing the newest entries from the items they left gives back, entry for entry, the items before
/// them (in the collection's order: a new item at the end, a changed one in its place, a deleted one where it
/// was), also when several writes share a batch and one deletes an item the batch made; and the walk stops
/// before an entry it cannot undo exactly.
@Suite struct FileOrderItemsTests {
    private final class Folder {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-rewind-\(UUID())")
        var journal: String { url.appendingPathComponent("db.json.livestate").path }

        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    private typealias Planning = @Sendable (inout DocumentView) throws(HTTPError) -> DocumentStore.Plan

    private static let file =
        #"{"posts": [{"id": 1, "t": "a"}, {"id": 2, "t": "b"}, {"id": 3, "t": "c"}, "#
        + #"{"id": 4, "t": "d"}], "profile": {"n": 1}}"#

    /// `changes` as one write: each `(id, title)` put (nil title: deleted); `profile` sets the singular.
    private static func write(_ changes: [(Int64, String?)], profile: Int64? = nil) -> Planning {
        { _ throws(HTTPError) in
            var entries = changes.map { id, title in
                DocumentStore.Planned(
                    resource: "posts", id: DocumentID(.integer(id)),
                    document: title.map { JSONObject(["id": .integer(id), "t": .string($0)]) })
            }
            if let profile {
                entries.append(.init(resource: "profile", id: nil, document: JSONObject(["n": .integer(profile)])))
            }
            return .init(entries: entries, response: .noContent)
        }
    }

    /// The writes, sent in groups whose writes are submitted at once (so they may share a batch).
    private static let history: [[Planning]] = [
        [write([(5, "e")])],
        [write([(2, nil)]), write([(3, nil)])],  // the second's item before it was deleted by the first
        [write([(1, "a2")], profile: 2)],
        [write([(1, nil), (4, nil)])],  // the first item, then the last, in one write
        [write([(2, "b again")]), write([(6, "f")]), write([(5, "e2")])],
        [write([(2, nil)])],  // an id made again at the end, deleted again
        [write([(6, nil)]), write([(7, "g")])],
        // Items made and deleted again in one batch: after the last item in its place, then after one made before.
        [write([(8, "h"), (9, "i"), (8, nil)]), write([(10, "j")]), write([(9, nil)])],
        [write([(11, "k"), (12, "l"), (12, nil)])],
        // An item in its place deleted, made again at the end and deleted again, in one write.
        [write([(7, nil), (7, "g2"), (13, "m"), (7, nil)])],
    ]

    private static func texts(_ resources: [DataFileContent.Resource]) -> [String] {
        resources.flatMap { resource in
            resource.documents.map { "\(resource.name):" + String(decoding: $0.bytes, as: UTF8.self) }
        }
    }

    @Test func undoingTheNewestEntriesGivesTheItemsBeforeEachOfThem() throws {
        let folder = try Folder()
        let content = try DataFileContent(bytes: Array(Self.file.utf8), idField: "id")
        let journal = try SQLiteDocumentJournal(path: folder.journal)
        let store = DocumentStore(
            resources: content.resources.map { $0.model() }, journal: journal, appliedSeq: journal.startSeq,
            idField: "id", foreignKeySuffix: "Id")
        for group in Self.history {
            let done = DispatchSemaphore(value: 0)
            for plan in group { store.submit(plan) { _ in done.signal() } }
            for _ in group { try #require(done.wait(timeout: .now() + 10) == .success) }
        }
        let now = store.resources.map { resource in
            DataFileContent.Resource(
                name: resource.name, kind: resource.kind,
                documents: resource.kind == .singular ? [resource.singular].compactMap { $0 } : resource.items.documents
            )
        }
        let entries = try journal.entries(after: journal.startSeq)
        #expect(entries.count == 25)
        let recent = try journal.recent(limit: 100, bytes: 1 << 20)
        for count in 0...entries.count {
            let rewind = DocumentRewind(now, recent: recent, count: count, idField: "id")
            // The file's items with the entries before the undone ones applied, as a start would have them.
            var before = ResourcesAfterEntries(content.resources, idField: "id")
            try before.apply(entries[..<(entries.count - count)])
            #expect(Self.texts(rewind.resources) == Self.texts(before.resources), "\(count) undone")
            #expect(rewind.entries.map(\.seq) == entries.suffix(count).map(\.seq))
            #expect(rewind.entries.map(\.change) == entries.suffix(count).map(\.change))
        }
        #expect(
            Self.texts(DocumentRewind(now, recent: recent, count: 100, idField: "id").resources)
                == Self.texts(content.resources))
    }

    @Test func theWalkStopsBeforeAnEntryItCannotUndoExactly() throws {
        let content = try DataFileContent(bytes: Array(Self.file.utf8), idField: "id")
        let rows = [
            JournalRow(
                seq: 9, change: JournalChange(collection: "posts", id: "1", document: #"{"id":1,"t":"x"}"#),
                before: #"[{"id":1,"t":"a"}]"#),
            // Post 2 is not what this entry left: a person's edit, say.
            JournalRow(
                seq: 8, change: JournalChange(collection: "posts", id: "2", document: #"{"id":2,"t":"z"}"#),
                before: #"[{"id":2,"t":"y"}]"#),
        ]
        var now = content.resources
        now[0].documents[0] = StoredDocument(
            id: DocumentID(.integer(1)), object: JSONObject(["id": .integer(1), "t": .string("x")]))
        let rewind = DocumentRewind(now, recent: rows, count: 10, idField: "id")
        #expect(rewind.entries.map(\.seq) == [9])
        #expect(Self.texts(rewind.resources) == Self.texts(content.resources))
        // No item before (an older server's entry), and a resource that is not served: nothing undone.
        var older = rows[0]
        older.before = nil
        #expect(DocumentRewind(now, recent: [older], count: 10, idField: "id").entries.isEmpty)
        let elsewhere = JournalRow(
            seq: 9, change: JournalChange(collection: "users", id: "1", document: "{}"), before: "null")
        #expect(DocumentRewind(now, recent: [elsewhere] + rows, count: 10, idField: "id").entries.isEmpty)
    }
}
