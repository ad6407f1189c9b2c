import Domain
import HTTP
import Reactive
import StrictJSON
import Testing

@testable import Server

@Suite struct DocumentSearchIndexTests {
    /// The text made from a kept text and the items written since (`updated`) finds what a text made from
    /// every item finds, after random updates, inserts and deletes (the slots renumbered now and then), from
    /// states kept at random points.
    @Test func theTextMadeFromTheKeptOneAndTheWritesFindsWhatAWholeOneFinds() throws {
        var generator = SystemRandomNumberGenerator()
        let words = ["Ab", "ba", "É", "a\u{301}", "bb", "Zebra"]
        func object(_ seed: Int) -> JSONObject {
            let title = JSONValue.string(words[seed % words.count] + " " + words[seed / 7 % 6])
            guard seed % 3 == 0 else { return JSONObject(["title": title]) }
            return JSONObject(["title": title, "tags": .array([.string(words[seed % 5]), .integer(Int64(seed))])])
        }
        let queries = try ["a", "B", "é", "zeb", "ab ba", "%CC%81"].map {
            try DocumentQuery(QueryParameters(parsing: Substring("q=" + $0)))
        }
        for _ in 0..<30 {
            let resource = DocumentResource(
                name: "posts", kind: .collection,
                documents: (0..<50).map { StoredDocument(id: DocumentID(.integer(Int64($0))), object: object($0)) })
            var (seq, next): (Int64, Int) = (0, 50)
            var kept: [(seq: Int64, documents: [StoredDocument])] = [(0, resource.items.documents)]
            for _ in 0..<Int.random(in: 1...60, using: &generator) {
                seq += 1
                let ids = resource.items.documents.compactMap(\.id)
                let value = object(Int.random(in: 0...1_000, using: &generator))
                switch Int.random(in: 0...2, using: &generator) {
                case 0 where !ids.isEmpty:
                    resource.committed.send(
                        DocumentEntry(seq: seq, resource: "posts", id: ids.randomElement()!, document: value))
                case 1 where !ids.isEmpty:
                    resource.committed.send(
                        DocumentEntry(seq: seq, resource: "posts", id: ids.randomElement()!, document: nil))
                default:
                    next += 1
                    resource.committed.send(
                        DocumentEntry(
                            seq: seq, resource: "posts", id: DocumentID(.integer(Int64(next))), document: value))
                }
                let (items, now) = resource.itemsAndSeq
                if Int.random(in: 0...3, using: &generator) == 0 { kept.append((now, items.documents)) }
                let whole = DocumentSearchText(compact: items.documents.map(\.bytes))
                for (keptSeq, documents) in kept {
                    guard
                        let overlay = DocumentIndexOverlay(
                            kept: documents, keptSeq: keptSeq, now: items, limit: 1_000),
                        let updated = DocumentSearchIndex.updated(
                            DocumentSearchText(compact: documents.map(\.bytes)), by: overlay)
                    else {
                        Issue.record("no text made from the state of \(keptSeq)")
                        continue
                    }
                    #expect(updated.count == items.count)
                    for query in queries {
                        var meter = ListQuery.Meter()
                        let found = try updated.search(query, meter: &meter) { _ in false }
                        #expect(
                            found == (try whole.search(query, meter: &meter) { _ in false }), "\(query.search ?? "")")
                    }
                }
            }
        }
    }
}
