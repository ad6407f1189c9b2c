import Domain
import HTTP
import Reactive
import StrictJSON
import Testing

@testable import Server

@Suite struct DocumentSortIndexTests {
    /// A deterministic generator, so that a failure can be run again.
    private struct Steps: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    /// An item whose sort fields take few values (ties the collection's order breaks), text or numbers, or
    /// are missing.
    private static func object(_ id: Int64, _ steps: inout Steps) -> JSONObject {
        var object = JSONObject(["id": .integer(id)])
        switch Int.random(in: 0..<10, using: &steps) {
        case 0: break
        case 1: object["rank"] = .string("r\(Int.random(in: 0..<3, using: &steps))")
        default: object["rank"] = .integer(Int64.random(in: 0..<12, using: &steps))
        }
        object["tag"] = .string(["a", "b", "c"][Int.random(in: 0..<3, using: &steps)])
        return object
    }

    /// The order a sort of every item gives (the route's, off the loop).
    private static func fullSort(_ query: DocumentQuery, _ resource: DocumentResource) throws -> [StoredDocument] {
        var sorting = query
        sorting.window = .all
        return try sorting.apply(to: resource.items.documents, bounded: false, object: { $0.object }).items
    }

    /// A collection of `count` items, and its order by `query` built.
    private static func sorted(_ count: Int64, by query: DocumentQuery, _ steps: inout Steps) -> (
        DocumentResource, DocumentSortIndex
    ) {
        let resource = DocumentResource(
            name: "posts", kind: .collection,
            documents: (1...count).map {
                StoredDocument(id: DocumentID(pathSegment: String($0)), object: Self.object($0, &steps))
            })
        let index = DocumentSortIndex()
        index.build(query, on: resource, idPath: ["id"])
        return (resource, index)
    }

    @Test(arguments: ["_sort=rank", "_sort=-rank,tag", "_sort=tag,-id"])
    func anOrderMadeFromTheChangesIsTheOrderASortGives(_ sort: String) throws {
        var steps = Steps(state: 39)
        let query = try DocumentQuery(QueryParameters(parsing: sort[...]))
        let (resource, index) = Self.sorted(400, by: query, &steps)
        var (seq, nextID): (Int64, Int64) = (1, 401)
        for round in 0..<30 {
            // A few writes of each kind, then the order of the collection as it is now.
            for _ in 0..<Int.random(in: 1...6, using: &steps) {
                let ids = resource.items.documents.compactMap { $0.id }
                let id: DocumentID
                var object: JSONObject? = nil
                switch Int.random(in: 0..<3, using: &steps) {
                case 0:
                    id = DocumentID(pathSegment: String(nextID))
                    object = Self.object(nextID, &steps)
                    nextID += 1
                case 1:
                    id = ids.randomElement(using: &steps)!
                    object = Self.object(Int64(id.key)!, &steps)
                default:
                    id = ids.randomElement(using: &steps)!
                }
                resource.committed.send(DocumentEntry(seq: seq, resource: "posts", id: id, document: object))
                seq += 1
            }
            let order = try #require(index.sorted(query, on: resource), "round \(round)")
            let expected = try Self.fullSort(query, resource)
            #expect(order.documents.map { $0.id?.key } == expected.map { $0.id?.key }, "round \(round)")
            #expect(order.documents.count == expected.count)
            let collection = resource.items.documents
            #expect(order.placesByRank.map { collection[$0] } == order.documents, "round \(round)")
            #expect(order.documents.indices.allSatisfy { order.rank(of: order.documents[$0]) == $0 })
            #expect(order.collection.count == collection.count)
        }
    }

    @Test func anOrderIsNotMadeFromMoreChangesThanItMayPlace() throws {
        var steps = Steps(state: 7)
        let query = try DocumentQuery(QueryParameters(parsing: "_sort=rank"[...]))
        let (resource, index) = Self.sorted(100, by: query, &steps)
        for id in Int64(101)...110 {
            resource.committed.send(
                DocumentEntry(
                    seq: id, resource: "posts", id: DocumentID(pathSegment: String(id)),
                    document: Self.object(id, &steps)))
        }
        // Ten items to place: not at once with a bound of 5 (the route then builds it on a worker), with 10.
        #expect(index.sorted(query, on: resource, placing: 5) == nil)
        let order = try #require(index.sorted(query, on: resource, placing: 10))
        #expect(order.documents.map { $0.id?.key } == (try Self.fullSort(query, resource)).map { $0.id?.key })
        // Kept: the next request takes it as it is.
        #expect(index.sorted(query, on: resource, placing: 0)?.seq == order.seq)
    }
}
