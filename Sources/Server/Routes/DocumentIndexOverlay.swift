import Domain
import HTTP

/// How a text kept for an earlier state of a large collection (`DocumentSearchIndex`, `DocumentFieldIndex`)
/// answers for the collection as it is now, while the text for now is made on a worker: after a few writes
/// that changed items in place or added items, the text answers for the items it holds, and the changed and
/// added items are tested alone. So the first request after a write costs its change rather than waiting for
/// the text of every item to be made again (0.1 to 1 s for 100,000 items in a debug build).
struct DocumentIndexOverlay {
    /// The most changed or added items an earlier text is used with (each is read per request).
    static let limit = 256

    /// The collection's items now.
    let documents: [StoredDocument]
    /// The places of the items that are not the text's (changed in place, or added), ascending.
    let changed: [Int]

    /// The overlay of the text of `kept` (the items it was made of) for `documents`; nil when more than
    /// `limit` items differ, or items were removed (every later place moves).
    init?(kept: [StoredDocument], now documents: [StoredDocument]) {
        guard documents.count >= kept.count, documents.count - kept.count <= Self.limit else { return nil }
        var changed: [Int] = []
        // NB: by identity, a loop over the places (a stored item is replaced, never changed, by a write).
        for place in 0..<kept.count where documents[place] !== kept[place] {
            changed.append(place)
            if changed.count > Self.limit { return nil }
        }
        changed += kept.count..<documents.count
        guard changed.count <= Self.limit else { return nil }
        self.documents = documents
        self.changed = changed
    }

    /// Whether each item now passes: `passing` (by place among the text's items) for the items the text holds,
    /// `test` of each changed or added item (whose error, a match past its limit, refuses the query).
    func passing(_ passing: [Bool], test: (StoredDocument) throws(HTTPError) -> Bool) throws(HTTPError) -> [Bool] {
        var result = passing
        result.append(contentsOf: repeatElement(false, count: documents.count - passing.count))
        for place in changed { result[place] = try test(documents[place]) }
        return result
    }
}
