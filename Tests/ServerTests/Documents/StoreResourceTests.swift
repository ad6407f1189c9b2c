import Dispatch
import Domain
import Foundation
import HTTP
import Reactive
import Storage
import StrictJSON
import Synchronization
import Testing

@testable import Server

/// A `DocumentStore` resource that is no data file's (`StoreResource`): its plans read it and its committed
/// entries reach it by the same path as a data file's resources, on a real SQLite journal.
@Suite struct StoreResourceTests {
    /// A singular resource held in no file: it reads as the last entry applied to it and records every entry.
    private final class Tally: StoreResource {
        let name = "tally"
        let kind = DocumentResource.Kind.singular
        let fileSize = 0
        let applied = Mutex<[DocumentEntry]>([])
        private let held = DocumentResource(name: "tally", kind: .singular, documents: [])

        var items: DocumentItems { held.items }
        var count: Int { held.count }
        var singular: StoredDocument? { held.singular }
        func document(_ id: DocumentID) -> StoredDocument? { nil }
        func apply(_ entry: DocumentEntry) {
            applied.withLock { $0.append(entry) }
            held.committed.send(entry)
        }
    }

    private static func submit(
        _ store: DocumentStore, _ plan: @escaping @Sendable (inout DocumentView) throws(HTTPError) -> DocumentStore.Plan
    ) throws -> Response {
        let answer = Mutex<Response?>(nil)
        let answered = DispatchSemaphore(value: 0)
        store.submit(plan) { response in
            answer.withLock { $0 = response }
            answered.signal()
        }
        try #require(answered.wait(timeout: .now() + 10) == .success)
        return try #require(answer.withLock { $0 })
    }

    /// Each plan reads the tally as the one before left it and adds one; every committed entry is sent into the
    /// tally once, in order, with its journal id, and is kept in the journal.
    @Test func aResourceHeldInNoFileIsPlannedAndAppliedLikeTheFilesOwn() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID()).livestate").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let journal = try SQLiteDocumentJournal(path: file)
        let tally = Tally()
        let store = DocumentStore(
            resources: [DocumentResource(name: "posts", kind: .collection, documents: [])], others: [tally],
            journal: journal, appliedSeq: 0, idField: "id", foreignKeySuffix: "Id")
        for _ in 0..<3 {
            let answer = try Self.submit(store) { view throws(HTTPError) in
                let count: Int64 = if case .integer(let n)? = view.singular("tally")["count"] { n } else { 0 }
                let next = JSONObject(["count": .integer(count + 1)])
                return .init(
                    entries: [.init(resource: "tally", id: nil, document: next)],
                    response: Response(status: 200, body: next.compactBytes))
            }
            #expect(answer.status == 200)
        }
        let applied = tally.applied.withLock { $0 }
        #expect(applied.map { $0.document?["count"] } == [.integer(1), .integer(2), .integer(3)])
        #expect(applied.map(\.seq) == applied.map(\.seq).sorted() && applied.allSatisfy { $0.resource == "tally" })
        #expect(try journal.entries(after: 0).map(\.seq) == applied.map(\.seq))
        #expect(store.byName["tally"] == nil)
    }

    /// A resource that reads its entries' text: the entries other servers committed (a catch-up) reach it as
    /// the journal's text, unparsed (an album image's entry is megabytes, parsed off the write thread), in
    /// order, and count as applied.
    @Test func anotherServersEntryReachesAResourceThatTakesTextAsItsText() throws {
        final class Texts: StoreResource {
            let name = "image"
            let kind = DocumentResource.Kind.singular
            let fileSize = 0
            let texts = Mutex<[String]>([])
            let parsed = Mutex(0)
            var items: DocumentItems { DocumentItems([]) }
            var count: Int { 0 }
            var singular: StoredDocument? { nil }
            func document(_ id: DocumentID) -> StoredDocument? { nil }
            func apply(_ entry: DocumentEntry) { parsed.withLock { $0 += 1 } }
            let takesText = true
            func apply(seq: Int64, text: String?) { texts.withLock { $0.append("\(seq) \(text ?? "-")") } }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID()).livestate").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        let texts = Texts()
        let store = DocumentStore(
            resources: [], others: [texts], journal: try SQLiteDocumentJournal(path: file), appliedSeq: 4,
            idField: "id", foreignKeySuffix: "Id")
        // NB: not even JSON: the store hands the text on as it is, and the resource judges it.
        let image = #"{"selection":5,"data":"iVBORw0KGgo="}"#
        store.applyCommitted([
            JournalEntry(seq: 4, change: JournalChange(collection: "image", id: nil, document: "old")),
            JournalEntry(seq: 6, change: JournalChange(collection: "image", id: nil, document: image)),
            JournalEntry(seq: 7, change: JournalChange(collection: "image", id: nil, document: "{not json")),
        ])
        #expect(texts.texts.withLock { $0 } == ["6 \(image)", "7 {not json"])
        #expect(texts.parsed.withLock { $0 } == 0)
        #expect(store.appliedSeq.withLock { $0 } == 7)
    }
}
