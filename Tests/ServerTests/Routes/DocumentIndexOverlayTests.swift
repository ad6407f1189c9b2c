import Domain
import HTTP
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
}
