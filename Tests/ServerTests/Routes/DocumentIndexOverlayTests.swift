import Domain
import HTTP
import StrictJSON
import Testing

@testable import Server

@Suite struct DocumentIndexOverlayTests {
    private static func items(_ count: Int) -> [StoredDocument] {
        (0..<count).map { StoredDocument(id: nil, object: JSONObject(["n": .integer(Int64($0))])) }
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

    @Test func answersNilWhenItemsWereRemovedOrManyChanged() {
        let kept = Self.items(DocumentIndexOverlay.limit + 10)
        #expect(DocumentIndexOverlay(kept: kept, now: Array(kept.dropFirst())) == nil)
        #expect(DocumentIndexOverlay(kept: kept, now: Self.items(kept.count)) == nil)
        #expect(DocumentIndexOverlay(kept: kept, now: kept + Self.items(DocumentIndexOverlay.limit + 1)) == nil)
        #expect(DocumentIndexOverlay(kept: kept, now: kept)?.changed == [])
    }
}
