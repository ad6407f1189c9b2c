import Foundation
import Reactive
import Support
import Synchronization
import Testing

@testable import HTTP

/// `ListEncoder`: a list whose items mostly did not change encodes only the changed ones, gives the bytes a
/// whole-list encoding would, and tells the change. Serialized: tests count `Item`'s encodings and comparisons.
@Suite(.serialized) struct ListEncoderTests {
    /// A todo-shaped item with synthesised coding (HTTP knows no view model's types).
    private struct Row: Codable, Equatable, Identifiable, Sendable {
        var id: Int
        var title: String
        var completed = false
    }

    /// An identifiable item that counts how often it is encoded.
    private struct Item: Identifiable, Equatable, Encodable, Sendable {
        static let encodings = Mutex(0)
        static let comparisons = Mutex(0)
        var id: Int
        var name: String
        func encode(to encoder: any Encoder) throws {
            Self.encodings.withLock { $0 += 1 }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
        }
        enum CodingKeys: String, CodingKey { case id, name }
        static func == (a: Item, b: Item) -> Bool {
            comparisons.withLock { $0 += 1 }
            return a.id == b.id && a.name == b.name
        }
    }

    @Test func everyListGivesTheBytesOfAWholeEncoding() throws {
        let encoder = ListEncoder<[Row]>()
        var list = (1...50).map { Row(id: $0, title: "title \($0) \"quoted\" / é \u{1F600}", completed: $0 % 3 == 0) }
        var lists = [list, []]
        list.remove(at: 7)
        lists.append(list)
        list[3].title = "changed"
        list.append(Row(id: 99, title: "new"))
        lists.append(list)
        lists.append(Array(list.reversed()))
        lists.append(list + list)
        lists.append(list)
        for list in lists {
            #expect(try encoder.encode(list).bytes == JSONCoding.encode(list))
        }
    }

    @Test func aChangeOfOneItemEncodesThatItemOnly() throws {
        let encoder = ListEncoder<[Item]>()
        var list = (1...1000).map { Item(id: $0, name: "item \($0)") }
        _ = try encoder.encode(list)
        let before = Item.encodings.withLock { $0 }
        list[500].name = "renamed"
        list.append(Item(id: 1001, name: "added"))
        _ = try encoder.encode(list)
        #expect(Item.encodings.withLock { $0 } - before == 2)
    }

    @Test func anEditAnywhereGivesTheBytesAndTheChangeOfAWholeComparison() throws {
        // Deterministic edits of every kind (append, insert, delete, update, move, two far apart), each
        // checked against a whole encoding and against the change computed item by item.
        let encoder = ListEncoder<[Row]>()
        var list = (1...40).map { Row(id: $0, title: "row \($0)") }
        var seed: UInt64 = 12
        var nextID = 100
        _ = try encoder.encode(list)
        for step in 0..<300 {
            let before = list
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let position = list.isEmpty ? 0 : Int((seed >> 33) % UInt64(list.count))
            switch step % 6 {
            case 0: list.append(Row(id: nextID, title: "appended \(step)"))
            case 1: list.insert(Row(id: nextID, title: "inserted \(step)"), at: position)
            case 2: if !list.isEmpty { list.remove(at: position) }
            case 3: if !list.isEmpty { list[position].completed.toggle() }
            case 4: if list.count > 1 { list.append(list.remove(at: position)) }
            default:
                if list.count > 2 {
                    list[0].title += "!"
                    list[list.count - 1].title += "?"
                }
            }
            nextID += 1
            let encoded = try encoder.encode(list)
            #expect(encoded.bytes == (try JSONCoding.encode(list)), "step \(step)")
            #expect(encoded.diff.map { String(decoding: $0, as: UTF8.self) } == (try Self.change(before, list)))
        }
    }

    @Test func aListGivenWithItsChangeGivesTheBytesAndTheChangeOfAWholeComparison() throws {
        // Random inserts (anywhere), updates, deletes and unchanged writes, each given with its change; every
        // tenth change does not fit the list (a wrong place) and must be found by comparing instead.
        let encoder = ListEncoder<[Row]>()
        var list = (1...30).map { Row(id: $0 * 2, title: "row \($0)") }
        var seed: UInt64 = 41
        _ = try encoder.encode(list)
        for step in 0..<400 {
            let before = list
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let position = list.isEmpty ? 0 : Int((seed >> 33) % UInt64(list.count))
            var change: ListChange<Row>
            switch step % 4 {
            case 0:
                let row = Row(id: 1000 + step, title: "inserted \(step)")
                list.insert(row, at: position)
                change = .inserted(row, at: position)
            case 1 where !list.isEmpty:
                list[position].completed.toggle()
                change = .updated(list[position], at: position)
            case 2 where !list.isEmpty:
                change = .deleted(list.remove(at: position), at: position)
            default:
                change = .unchanged
            }
            if step % 10 == 9, case .updated(let row, _) = change { change = .updated(row, at: list.count) }
            let encoded = try encoder.encode(list, change: change)
            #expect(encoded.bytes == (try JSONCoding.encode(list)), "step \(step)")
            #expect(encoded.diff.map { String(decoding: $0, as: UTF8.self) } == (try Self.change(before, list)))
        }
    }

    @Test func aWriteGivenWithItsChangeComparesNoRowsOfTheList() throws {
        // A write to a list of 10,000 items costs its item: at most one comparison (an update against the
        // item it replaces) and one encoding. Found by comparing the lists, the same write compares each row.
        let encoder = ListEncoder<[Item]>()
        var list = (1...10_000).map { Item(id: $0, name: "item \($0)") }
        _ = try encoder.encode(list)
        let added = Item(id: 10_001, name: "added")
        let renamed = Item(id: 5000, name: "renamed")
        let writes: [(ListChange<Item>, (inout [Item]) -> Void)] = [
            (.inserted(added, at: 10_000), { $0.append(added) }),
            (.updated(renamed, at: 4999), { $0[4999] = renamed }),
            (.deleted(Item(id: 2, name: "item 2"), at: 1), { $0.remove(at: 1) }),
            (.unchanged, { _ in }),
        ]
        for (offset, (change, apply)) in writes.enumerated() {
            apply(&list)
            let comparisons = Item.comparisons.withLock { $0 }
            let encodings = Item.encodings.withLock { $0 }
            let encoded = try encoder.encode(list, change: change)
            #expect(Item.comparisons.withLock { $0 } - comparisons <= 1, "write \(offset)")
            #expect(Item.encodings.withLock { $0 } - encodings <= 1, "write \(offset)")
            #expect(encoded.bytes == (try JSONCoding.encode(list)), "write \(offset)")
        }
        let other = ListEncoder<[Item]>()
        _ = try other.encode(Array(list.dropLast()))
        let comparisons = Item.comparisons.withLock { $0 }
        _ = try other.encode(list)
        #expect(Item.comparisons.withLock { $0 } - comparisons >= 9_000)
    }

    /// The change from `old` to `new` as `?diff=1` sends it, computed with no cache.
    private static func change(_ old: [Row], _ new: [Row]) throws -> String {
        let oldByID = Dictionary(uniqueKeysWithValues: old.map { ($0.id, $0) })
        let newIDs = Set(new.map(\.id))
        let deleted = old.map(\.id).filter { !newIDs.contains($0) }
        let inserted = new.filter { oldByID[$0.id] == nil }
        let updated = new.filter { row in oldByID[row.id].map { $0 != row } ?? false }
        func json<T: Encodable>(_ value: T) throws -> String {
            String(decoding: try JSONCoding.encode(value), as: UTF8.self)
        }
        return #"{"deleted":\#(try json(deleted)),"inserted":\#(try json(inserted)),"updated":\#(try json(updated))}"#
    }

    @Test func anAppendToALongListEncodesTheNewItemOnly() throws {
        let encoder = ListEncoder<[Item]>()
        var list = (1...3000).map { Item(id: $0, name: "item \($0)") }
        _ = try encoder.encode(list)
        let before = Item.encodings.withLock { $0 }
        list.append(Item(id: 3001, name: "added"))
        list.remove(at: 1500)
        list[10].name = "renamed"
        for _ in 0..<3 { _ = try encoder.encode(list) }
        #expect(Item.encodings.withLock { $0 } - before == 2)
    }

    @Test func theChangeListsDeletedInsertedAndUpdatedItems() throws {
        let encoder = ListEncoder<[Row]>()
        let a = Row(id: 1, title: "first")
        let b = Row(id: 2, title: "second")
        let c = Row(id: 3, title: "third")
        #expect(try encoder.encode([a, b]).diff == nil)  // the first list: no previous one
        var b2 = b
        b2.completed = true
        let change = try encoder.encode([b2, c]).diff.map { String(decoding: $0, as: UTF8.self) }
        #expect(
            change
                == #"{"deleted":[1],"inserted":[{"completed":false,"id":3,"title":"third"}],"#
                + #""updated":[{"completed":true,"id":2,"title":"second"}]}"#)
        let unchanged = try encoder.encode([b2, c]).diff.map { String(decoding: $0, as: UTF8.self) }
        #expect(unchanged == #"{"deleted":[],"inserted":[],"updated":[]}"#)
        // A deleted id that comes back is inserted again, encoded afresh.
        let back = try encoder.encode([a, b2, c]).diff.map { String(decoding: $0, as: UTF8.self) }
        #expect(back == #"{"deleted":[],"inserted":[{"completed":false,"id":1,"title":"first"}],"updated":[]}"#)
    }

    @Test func aListHoldingAnIdTwiceLeavesTheChangeToTheCaller() throws {
        let encoder = ListEncoder<[Row]>()
        let a = Row(id: 1, title: "first")
        _ = try encoder.encode([a])
        let twice = [a, Row(id: 1, title: "other")]
        let encoded = try encoder.encode(twice)
        #expect(encoded.diff == nil)
        #expect(encoded.bytes == (try JSONCoding.encode(twice)))
    }

    @Test func theSnapshotOfAnIdentifiableListCarriesItsChange() throws {
        let subject = CurrentValueSubject<[Row], Never>([Row(id: 1, title: "first")])
        let snapshot = EncodedSnapshot(identifiedList: subject)
        #expect(snapshot.current?.diff == nil)
        subject.send([Row(id: 1, title: "first"), Row(id: 2, title: "second")])
        #expect(snapshot.current?.diff.map { String(decoding: $0, as: UTF8.self) }?.contains(#""id":2"#) == true)
        #expect(snapshot.response?.headers["X-Total-Count"] == "2")
        #expect(snapshot.bytes == (try JSONCoding.encode(subject.value)))
    }
}
