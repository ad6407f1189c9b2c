import Reactive
import StrictJSON
import Testing

@testable import Domain

/// `DocumentItemsLoad`: a collection's items filed by id as a load reads them serve as the same items
/// filed at once.
@Suite struct DocumentItemsLoadTests {
    /// `count` items with integer ids, then a few with text ids, every tenth one repeating an earlier
    /// item's id (as text when the earlier one is an integer: `"7"` and `7` are one id).
    private func items(_ count: Int) -> [StoredDocument] {
        (0..<count).map { index in
            let id: JSONValue =
                index % 10 == 9
                ? (index % 20 == 19 ? .string(String(index / 2)) : .integer(Int64(index / 3)))
                : index % 7 == 3 ? .string("k\(index)") : .integer(Int64(index))
            let object = JSONObject(["id": id, "title": .string("item \(index)"), "n": .integer(Int64(index % 5))])
            return StoredDocument(id: DocumentID(id), object: object, keepsTree: false)
        }
    }

    @Test func refusesAnIDAnEarlierItemHasAndServesAsTheItemsFiledAtOnce() throws {
        let read = items(3000)
        var load = DocumentItemsLoad()
        load.expect(5000)
        var kept: [StoredDocument] = []
        for document in read where load.append(document) { kept.append(document) }
        load.trim()
        #expect(kept.count < read.count)
        #expect(Set(kept.map { $0.id!.key }).count == kept.count)
        #expect(load.count == kept.count)
        let again = load.append(StoredDocument(id: DocumentID(.string("1")), object: JSONObject(["id": .string("1")])))
        #expect(!again)
        let loaded = DocumentResource(
            name: "posts", kind: .collection, items: DocumentItems(loaded: load, indentation: nil))
        let filed = DocumentResource(name: "posts", kind: .collection, documents: kept)
        // The same writes to both: each answers as the other.
        let entries = [
            DocumentEntry(seq: 1, resource: "posts", id: DocumentID(.integer(4)), document: nil),
            DocumentEntry(
                seq: 2, resource: "posts", id: DocumentID(.string("k3")),
                document: JSONObject(["id": .string("k3"), "title": .string("new")])),
            DocumentEntry(
                seq: 3, resource: "posts", id: DocumentID(.integer(99_999)),
                document: JSONObject(["id": .integer(99_999)])),
        ]
        for resource in [loaded, filed] {
            for entry in entries { resource.committed.send(entry) }
        }
        #expect(loaded.bytes == filed.bytes)
        #expect(loaded.fileSize == filed.fileSize)
        #expect(loaded.items.count == filed.items.count)
        for document in kept + [StoredDocument(id: DocumentID(.integer(99_999)), object: JSONObject())] {
            let id = try #require(document.id)
            #expect(loaded.items.document(id)?.bytes == filed.items.document(id)?.bytes, "id \(id.key)")
        }
        #expect(
            loaded.documents(whereValueAt: ["n"], isOneOf: ["2"]).map(\.bytes)
                == filed.documents(whereValueAt: ["n"], isOneOf: ["2"]).map(\.bytes))
    }

    @Test func givesBackTheRoomNoItemTook() throws {
        var load = DocumentItemsLoad()
        load.expect(1_000_000)
        #expect(load.positions.capacity >= 1_000_000)
        for index in 0..<10 {
            let filed = load.append(StoredDocument(id: DocumentID(.integer(Int64(index))), object: JSONObject()))
            #expect(filed)
        }
        load.trim()
        #expect(load.positions.capacity < 100)
        #expect(load.positions.isAscending)
        let items = DocumentItems(loaded: load, indentation: nil)
        #expect(items.count == 10)
        #expect(items.document(try #require(DocumentID(.string("7"))))?.id == DocumentID(.integer(7)))
    }
}
