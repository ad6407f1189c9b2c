import Dispatch
import Domain
import HTTP
import Reactive
import Storage
import StrictJSON
import Synchronization
import Testing

@testable import Server

/// `DocumentReset`: the puts and deletes that make a collection hold a state again, in the state's order,
/// sending only what differs, and past `moveLimit` putting an item back at the end instead.
@Suite struct DocumentResetTests {
    private static func item(_ id: Int, _ title: String = "t") -> StoredDocument {
        let object = JSONObject(["id": .integer(Int64(id)), "title": .string(title)])
        return StoredDocument(id: DocumentID(.integer(Int64(id))), object: object)
    }

    /// A store of one collection `items` holding `documents`, on an SQLite journal in memory.
    private static func store(_ documents: [StoredDocument]) throws -> DocumentStore {
        let resource = DocumentResource(name: "items", kind: .collection, documents: documents)
        return DocumentStore(
            resources: [resource], journal: try SQLiteDocumentJournal(path: ":memory:"), appliedSeq: 0,
            idField: "id", foreignKeySuffix: "Id")
    }

    /// Commits a reset of `items` to `target` and waits for its answer (the store commits on its own
    /// thread); answers how many entries it made.
    private static func reset(_ store: DocumentStore, to target: [StoredDocument]) -> Int {
        let count = Mutex(-1)
        let answered = DispatchSemaphore(value: 0)
        store.submit({ view throws(HTTPError) in
            let entries = DocumentReset.entries(for: "items", to: .collection(target), view: view)
            count.withLock { $0 = entries.count }
            return .init(entries: entries, response: .noContent)
        }) { _ in answered.signal() }
        guard answered.wait(timeout: .now() + 10) == .success else { return -2 }
        return count.withLock { $0 }
    }

    private static func ids(_ store: DocumentStore) -> [String] {
        store.byName["items"]?.items.documents.compactMap { $0.id?.key } ?? []
    }

    @Test func aStateAlreadyHeldMakesNoEntry() throws {
        let start = (1...5).map { Self.item($0) }
        let store = try Self.store(start)
        #expect(Self.reset(store, to: start) == 0)
    }

    @Test func changesInPlaceAndAtTheEndAreUndoneOneEntryEach() throws {
        let start = (1...5).map { Self.item($0) }
        let store = try Self.store(start)
        store.byName["items"]?.committed.send(
            DocumentEntry(
                seq: 1, resource: "items", id: DocumentID(.integer(3)),
                document: JSONObject(["id": .integer(3), "title": .string("x")])))
        store.byName["items"]?.committed.send(
            DocumentEntry(seq: 2, resource: "items", id: DocumentID(.integer(5)), document: nil))
        store.byName["items"]?.committed.send(
            DocumentEntry(
                seq: 3, resource: "items", id: DocumentID(.integer(6)), document: JSONObject(["id": .integer(6)])))
        #expect(Self.reset(store, to: start) == 3)
        #expect(store.byName["items"]?.items.documents == start)
    }

    @Test func anItemDeletedEarlyComesBackAtItsPlace() throws {
        let start = (1...5).map { Self.item($0) }
        let store = try Self.store(start)
        store.byName["items"]?.committed.send(
            DocumentEntry(seq: 1, resource: "items", id: DocumentID(.integer(2)), document: nil))
        // Item 2 put back, and 3, 4 and 5 deleted and put again after it.
        #expect(Self.reset(store, to: start) == 7)
        #expect(Self.ids(store) == ["1", "2", "3", "4", "5"])
    }

    @Test func pastTheMoveLimitAPutBackItemGoesToTheEnd() throws {
        let start = (1...(DocumentReset.moveLimit + 2)).map { Self.item($0) }
        let store = try Self.store(start)
        store.byName["items"]?.committed.send(
            DocumentEntry(seq: 1, resource: "items", id: DocumentID(.integer(1)), document: nil))
        #expect(Self.reset(store, to: start) == 1)
        #expect(Self.ids(store) == start.dropFirst().compactMap { $0.id?.key } + ["1"])
    }
}
