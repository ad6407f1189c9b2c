import Domain
import HTTP
import Reactive
import StrictJSON
import Testing

@testable import Server

@Suite struct DocumentIndexOverlayTests {
    private static func items(_ count: Int) -> [StoredDocument] {
        (0..<count).map { StoredDocument(id: nil, object: JSONObject(["n": .integer(Int64($0))])) }
    }

    private static func identified(_ range: Range<Int>) -> [StoredDocument] {
        range.map {
            StoredDocument(id: DocumentID(.integer(Int64($0))), object: JSONObject(["n": .integer(Int64($0))]))
        }
    }

    @Test func findsTheItemsChangedInPlaceAndAdded() throws {
        let kept = Self.items(10)
        var now = kept
        now[3] = StoredDocument(id: nil, object: JSONObject(["n": .integer(30)]))
        now.append(contentsOf: Self.items(2))
        let overlay = try #require(DocumentIndexOverlay(kept: kept, now: now))
        #expect(overlay.changed == [3, 10, 11])
        // The text's marks for the items it holds, and the changed and added items tested alone.
        let passing = try overlay.passing([Bool](repeating: true, count: 10)) { $0.object["n"] == .integer(0) }
        #expect(passing == [true, true, true, false, true, true, true, true, true, true, true, false])
    }

    @Test func aChangedItemWhoseTestIsRefusedRefusesTheAnswer() throws {
        let kept = Self.items(4)
        var now = kept
        now[1] = StoredDocument(id: nil, object: JSONObject(["n": .integer(10)]))
        let overlay = try #require(DocumentIndexOverlay(kept: kept, now: now))
        // A `_like` match past its limit on a changed item: the query is refused, as the whole list's answer
        // is, rather than the item silently left out.
        #expect(throws: HTTPError.self) {
            _ = try overlay.passing([true, true, true, true]) { (_) throws(HTTPError) in
                throw ListQuery.tooExpensive("the '_like' pattern needs too much work")
            }
        }
    }

    @Test func linesUpTheItemsLeftAfterARemoval() throws {
        let kept = Self.identified(0..<8)
        // 2 and 5 removed, 3 changed in place, 8 added.
        let changed = StoredDocument(id: kept[3].id, object: JSONObject(["n": .integer(30)]))
        let now = [kept[0], kept[1], changed, kept[4], kept[6], kept[7]] + Self.identified(8..<9)
        let overlay = try #require(DocumentIndexOverlay(kept: kept, now: now))
        #expect(overlay.removed == [2, 5])
        #expect(overlay.changed == [2, 6])
        #expect(overlay.replaced == [3, nil])
        #expect(overlay.placesNow() == [0, 1, -1, 2, 3, -1, 4, 5])
        // The text's places 0, 3, 4 and 7 pass: now at 0, (3 is changed), 3 and 5.
        #expect(overlay.surviving([0, 3, 4, 7]) == [0, 3, 5])
        let passing = try overlay.passing([true, false, true, true, true, true, false, true]) {
            $0.object["n"] == .integer(30)
        }
        #expect(passing == [true, false, true, true, false, true, false])
    }

    @Test func answersNilWhenManyChanged() {
        let kept = Self.identified(0..<(DocumentIndexOverlay.limit + 10))
        let more = Self.identified(kept.count..<(kept.count + DocumentIndexOverlay.limit + 1))
        #expect(DocumentIndexOverlay(kept: kept, now: Array(kept.dropFirst()))?.removed == [0])
        #expect(DocumentIndexOverlay(kept: kept, now: Self.items(kept.count)) == nil)
        #expect(DocumentIndexOverlay(kept: kept, now: kept + more) == nil)
        #expect(DocumentIndexOverlay(kept: kept, now: Array(kept.dropLast(DocumentIndexOverlay.limit + 1))) == nil)
        #expect(DocumentIndexOverlay(kept: kept, now: kept)?.changed == [])
    }
    /// The overlay made from the collection's change log is the one found by lining up the items, after random
    /// updates, inserts and deletes (enough deletes to renumber the slots now and then), from states kept at
    /// random points; and the log is used whenever it holds the writes since.
    @Test func theOverlayFromTheChangeLogIsTheOneFoundByLiningUpTheItems() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            let resource = DocumentResource(name: "posts", kind: .collection, documents: Self.identified(0..<60))
            var seq: Int64 = 0
            var next = 60
            var kept: [(seq: Int64, documents: [StoredDocument])] = [(0, resource.items.documents)]
            for _ in 0..<Int.random(in: 1...80, using: &generator) {
                seq += 1
                let ids = resource.items.documents.compactMap(\.id)
                let object = JSONObject(["n": .integer(Int64(seq))])
                switch Int.random(in: 0...2, using: &generator) {
                case 0 where !ids.isEmpty:
                    let id = ids.randomElement(using: &generator)!
                    resource.committed.send(DocumentEntry(seq: seq, resource: "posts", id: id, document: object))
                case 1 where !ids.isEmpty:
                    let id = ids.randomElement(using: &generator)!
                    resource.committed.send(DocumentEntry(seq: seq, resource: "posts", id: id, document: nil))
                default:
                    next += 1
                    let id = DocumentID(.integer(Int64(next)))
                    resource.committed.send(DocumentEntry(seq: seq, resource: "posts", id: id, document: object))
                }
                let (items, now) = resource.itemsAndSeq
                // The items in order, kept in step with each write, are the slots' items.
                let slotted = (0..<items.slotCount).compactMap { items.slot($0) }
                #expect(items.documents.count == slotted.count)
                #expect(zip(items.documents, slotted).allSatisfy { $0 === $1 })
                if Int.random(in: 0...4, using: &generator) == 0 { kept.append((now, items.documents)) }
                for (keptSeq, documents) in kept {
                    let lined = DocumentIndexOverlay(kept: documents, now: items.documents, limit: 1_000)
                    let logged = DocumentIndexOverlay.logged(
                        kept: documents, keptSeq: keptSeq, now: items, limit: 1_000)
                    guard case .overlay(let overlay) = logged else {
                        #expect(items.log.changes(after: keptSeq) == nil, "unlogged with the log")
                        continue
                    }
                    let expected = try #require(lined)
                    #expect(overlay.changed == expected.changed)
                    #expect(overlay.replaced == expected.replaced)
                    #expect(overlay.removed == expected.removed)
                    #expect(overlay.keptCount == expected.keptCount)
                    #expect(overlay.documents.count == items.count)
                }
            }
        }
    }
}
