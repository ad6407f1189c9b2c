import Domain
import Reactive
import StrictJSON
import Testing

@Suite struct DocumentResourceTests {
    private func post(_ id: Int64, _ title: String) -> StoredDocument {
        StoredDocument(id: DocumentID(.integer(id)), object: JSONObject(["id": .integer(id), "title": .string(title)]))
    }

    @Test func committedEntriesChangeTheItemsAndEmitWhatTheyDid() {
        let posts = DocumentResource(name: "posts", kind: .collection, documents: [post(1, "a"), post(2, "b")])
        var seen: [String] = []
        let subscription = posts.changes.sink { applied in
            switch applied.change {
            case .inserted(let document): seen.append("inserted \(document.id!.key) at \(applied.seq)")
            case .updated(let document): seen.append("updated \(document.id!.key) at \(applied.seq)")
            case .deleted(let id): seen.append("deleted \(id.key) at \(applied.seq)")
            }
        }
        let three = post(3, "c")
        posts.committed.send(DocumentEntry(seq: 5, resource: "posts", id: three.id, document: three.object))
        posts.committed.send(DocumentEntry(seq: 6, resource: "posts", id: three.id, document: three.object))
        posts.committed.send(DocumentEntry(seq: 7, resource: "posts", id: DocumentID(.integer(1)), document: nil))
        let two = post(2, "B")
        posts.committed.send(DocumentEntry(seq: 8, resource: "posts", id: two.id, document: two.object))
        #expect(seen == ["inserted 3 at 5", "deleted 1 at 7", "updated 2 at 8"])
        #expect(String(decoding: posts.bytes, as: UTF8.self) == #"[{"id":2,"title":"B"},{"id":3,"title":"c"}]"#)
        subscription.cancel()
    }

    @Test func anItemIsKeptAsItsCompactJSONInABufferOfItsSize() {
        let object = JSONObject([
            "id": .integer(1), "title": .string(String(repeating: "long title ", count: 12)),
            "tags": .array([.string("a"), .null, .bool(true), .real(2.5)]),
            "author": .object(JSONObject(["name": .string("é \u{0}")])),
        ])
        let stored = StoredDocument(id: DocumentID(.integer(1)), object: object, keepsTree: false)
        #expect(stored.bytes == object.compactBytes)
        #expect(stored.bytes.capacity < stored.bytes.count + 32)
        // Parsed from its bytes, the same members (no real here is written without a fraction).
        #expect(stored.object == object)
        let kept = StoredDocument(id: DocumentID(.integer(1)), object: object)
        #expect(kept.object == object)
        #expect(kept.withoutTree() == kept)
        #expect(kept.withoutTree().object == object)
    }

    @Test func anUpdateKeepsTheIDAsTheItemHoldsIt() {
        let item = StoredDocument(id: DocumentID(.string("1")), object: JSONObject(["id": .string("1")]))
        let posts = DocumentResource(name: "posts", kind: .collection, documents: [item])
        let edited = JSONObject(["id": .string("1"), "title": .string("new")])
        posts.committed.send(
            DocumentEntry(seq: 1, resource: "posts", id: DocumentID(pathSegment: "1"), document: edited))
        #expect(posts.items.documents.first?.id?.value == .string("1"))
    }

    @Test func aFieldIndexKeepsInStepWithWrites() {
        func item(_ id: Int64, _ user: JSONValue) -> JSONObject { JSONObject(["id": .integer(id), "userId": user]) }
        let posts = DocumentResource(
            name: "posts", kind: .collection,
            documents: (1...6).map { StoredDocument(id: DocumentID(.integer($0)), object: item($0, .integer($0 % 2))) })
        func ids(_ user: String) -> [String] {
            posts.documents(whereValueAt: ["userId"], isOneOf: [user]).compactMap { $0.id?.key }
        }
        #expect(ids("1") == ["1", "3", "5"])
        var seq: Int64 = 0
        func put(_ id: Int64, _ object: JSONObject?) {
            seq += 1
            posts.committed.send(
                DocumentEntry(seq: seq, resource: "posts", id: DocumentID(.integer(id)), document: object))
        }
        put(7, item(7, .string("1")))
        put(2, item(2, .integer(1)))
        put(3, item(3, .null))
        put(5, nil)
        put(4, item(4, .integer(0)))
        #expect(ids("1") == ["1", "2", "7"])
        #expect(ids("0") == ["4", "6"])
        // Enough deletes to renumber the slots: the index is made again.
        for id in Int64(8)...40 { put(id, item(id, .integer(1))) }
        for id in Int64(8)...39 { put(id, nil) }
        #expect(ids("1") == ["1", "2", "7", "40"])
    }

    @Test func anIndexBuiltOutsideTheLockFilesTheWritesMadeMeanwhile() async {
        // A build takes the items as they are, indexes them without the lock, then files again every slot
        // written meanwhile: whatever interleaving the threads take, the index answers as a scan would.
        func item(_ id: Int64, _ user: Int64) -> JSONObject {
            JSONObject(["id": .integer(id), "userId": .integer(user)])
        }
        let count: Int64 = 20_000
        let posts = DocumentResource(
            name: "posts", kind: .collection,
            documents: (1...count).map { StoredDocument(id: DocumentID(.integer($0)), object: item($0, $0 % 7)) })
        #expect(!posts.needsIndexBuild(at: ["userId"]))  // small enough to keep its trees: built inline
        await withTaskGroup(of: Void.self) { group in
            group.addTask { posts.buildIndex(at: ["userId"]) }
            group.addTask {
                for seq in Int64(1)...600 {
                    // Moves items between users, adds new ones and deletes a few, while the build runs.
                    let id = seq % 3 == 0 ? count + seq : (seq * 37) % count + 1
                    let document: JSONObject? = seq % 11 == 0 ? nil : item(id, (seq * 5) % 7)
                    posts.committed.send(
                        DocumentEntry(seq: seq, resource: "posts", id: DocumentID(.integer(id)), document: document))
                }
            }
        }
        for user in 0..<7 {
            let indexed = posts.documents(whereValueAt: ["userId"], isOneOf: [String(user)]).compactMap { $0.id?.key }
            let scanned = posts.items.documents.filter { $0.object["userId"] == .integer(Int64(user)) }
            #expect(indexed == scanned.compactMap { $0.id?.key }, "userId \(user)")
        }
    }

    @Test func idsCompareByTheirText() {
        #expect(DocumentID(.integer(1)) == DocumentID(.string("1")))
        #expect(DocumentID(pathSegment: "1").value == .integer(1))
        #expect(DocumentID(pathSegment: "01").value == .string("01"))
        #expect(DocumentID(.real(1.5)) == nil)
        #expect(DocumentID(.string("")) == nil)
    }
}
