import Foundation
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// `CollectionDiff`: the change between two lists.
@Suite struct CollectionDiffTests {
    @Test func findsInsertedUpdatedAndDeletedById() {
        let old = [Item(id: 1, title: "a"), Item(id: 2, title: "b"), Item(id: 3, title: "c")]
        let new = [Item(id: 3, title: "c"), Item(id: 2, title: "B"), Item(id: 4, title: "d")]
        let diff = CollectionDiff(from: old, to: new)
        #expect(diff.inserted == [Item(id: 4, title: "d")])
        #expect(diff.updated == [Item(id: 2, title: "B")])
        #expect(diff.deleted == [1])
    }

    @Test func encodesAsTheContractSays() throws {
        let diff = CollectionDiff(from: [Item(id: 1, title: "a")], to: [])
        let json = String(decoding: try JSONEncoder().encode(diff), as: UTF8.self)
        #expect(json.contains(#""deleted":[1]"#) && json.contains(#""inserted":[]"#))
    }
}
