import Reactive
import StrictJSON
import Testing

@testable import Domain

/// `DocumentPositions`: the index of ids answers as a dictionary from id text to slot does, in both forms
/// and across the turn from one to the other.
@Suite struct DocumentPositionsTests {
    /// A number in `0..<bound`, the same ones in turn for the same starting `state` (a linear congruence).
    private func draw(_ bound: Int, _ state: inout UInt64) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// A random id: mostly the next integer, sometimes its text, an earlier or smaller one, a text id, or one
    /// whose text is not an integer's (`"07"`).
    private func id(after largest: Int64, _ steps: inout UInt64) -> DocumentID {
        switch draw(20, &steps) {
        case 0: DocumentID(.string(String(largest + 1)))!
        case 1: DocumentID(.integer(Int64(draw(Int(largest) + 5, &steps)) - 3))!
        case 2: DocumentID(.string("k\(draw(50, &steps))"))!
        case 3: DocumentID(.string("0\(draw(9, &steps))"))!
        default: DocumentID(.integer(largest + 1 + Int64(draw(3, &steps))))!
        }
    }

    @Test(arguments: 0..<8) func answersAsADictionaryOfIDTextsThroughRandomFilingsAndRemovals(seed: Int) {
        var steps = UInt64(seed) &+ 99
        var positions = DocumentPositions()
        var model: [String: Int] = [:]
        var slots = 0
        var largest: Int64 = 0
        var seen: [DocumentID] = []
        for step in 0..<2000 {
            let move = draw(100, &steps)
            if move < 3 {
                positions.removeAll()
                model = [:]
                slots = 0
            } else if move < 15, !seen.isEmpty {
                let known = seen[draw(seen.count, &steps)]
                #expect(positions.remove(known) == model.removeValue(forKey: known.key), "step \(step)")
            } else {
                // Mostly appended in slot order, as the items are; now and then filed at a taken slot's number.
                let id = move < 80 || seen.isEmpty ? id(after: largest, &steps) : seen[draw(seen.count, &steps)]
                if case .integer(let number) = id.value { largest = max(largest, number) }
                let slot = move < 97 ? slots : draw(slots + 1, &steps)
                let taken = model[id.key]
                #expect(positions.insert(id, at: slot) == taken, "step \(step)")
                if taken == nil {
                    model[id.key] = slot
                    slots = max(slots, slot + 1)
                }
                seen.append(id)
            }
            #expect(positions.count == model.count, "step \(step)")
            for known in seen.suffix(20) {
                #expect(positions.slot(of: known) == model[known.key], "step \(step): id \(known.key)")
            }
        }
    }

    @Test func keepsIncreasingIntegerIDsInEightBytesEachAndTurnsIntoADictionaryOnAnyOther() throws {
        var positions = DocumentPositions()
        positions.reserveCapacity(100_000)
        for number in 1...100_000 {
            #expect(positions.insert(DocumentID(.integer(Int64(number)))!, at: number - 1) == nil)
        }
        #expect(positions.isAscending)
        #expect(positions.slot(of: try #require(DocumentID(.string("5000")))) == 4999)
        #expect(positions.slot(of: try #require(DocumentID(.string("05000")))) == nil)
        #expect(positions.remove(try #require(DocumentID(.integer(7)))) == 6)
        #expect(positions.slot(of: try #require(DocumentID(.integer(7)))) == nil)
        #expect(positions.count == 99_999)
        // A deleted id filed again goes to a new slot: the dictionary serves from there.
        #expect(positions.insert(try #require(DocumentID(.integer(7))), at: 100_000) == nil)
        #expect(!positions.isAscending)
        #expect(positions.slot(of: try #require(DocumentID(.integer(7)))) == 100_000)
        #expect(positions.slot(of: try #require(DocumentID(.string("100000")))) == 99_999)
        #expect(positions.count == 100_000)
        positions.removeAll()
        #expect(positions.isAscending)
        #expect(positions.count == 0)
    }

    @Test func aCollectionServesEachItemByIDThroughDeletesRenumberingAndOutOfOrderIDs() throws {
        func post(_ id: JSONValue) -> StoredDocument {
            StoredDocument(id: DocumentID(id), object: JSONObject(["id": id]), keepsTree: false)
        }
        let posts = DocumentResource(
            name: "posts", kind: .collection, documents: (1...100).map { post(.integer(Int64($0))) })
        var seq: Int64 = 0
        func write(_ id: JSONValue, delete: Bool = false) {
            seq += 1
            posts.committed.send(
                DocumentEntry(
                    seq: seq, resource: "posts", id: DocumentID(id), document: delete ? nil : JSONObject(["id": id])))
        }
        // Most deleted, so the slots are renumbered; then an id below the others and a text id.
        for number in 1...80 { write(.integer(Int64(number)), delete: true) }
        write(.integer(5))
        write(.string("x"))
        write(.integer(101))
        for number in Int64(1)...101 {
            let expected = number > 80 || number == 5
            #expect((posts.items.document(try #require(DocumentID(.integer(number)))) != nil) == expected, "\(number)")
            #expect((posts.items.document(try #require(DocumentID(.string(String(number))))) != nil) == expected)
        }
        #expect(posts.items.document(try #require(DocumentID(.string("x")))) != nil)
        #expect(posts.items.count == 23)
        #expect(posts.items.documents.map { $0.id!.key } == (81...100).map(String.init) + ["5", "x", "101"])
    }
}
