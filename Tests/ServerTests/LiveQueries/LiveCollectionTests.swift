import Synchronization
import Testing

@testable import Server

/// A live query's first items taken from an index of the collection's source (a data file's field index)
/// only while the index shows the same writes as the collection; else from every item, so the result stays
/// exact.
@Suite struct LiveCollectionTests {
    typealias Note = LiveQueryEngineTests.Note
    typealias NoteQuery = LiveQueryEngineTests.NoteQuery

    /// 40 notes in four groups, shown by event 10.
    static let notes = (0..<40).map { Note(id: "n\($0)", group: $0 % 4, rank: $0) }

    static func members(of query: NoteQuery) -> [Note] {
        notes.filter { query.groups?.contains($0.group) ?? true }
    }

    func collection(index: @escaping LiveCollection<NoteQuery>.Narrow) -> LiveCollection<NoteQuery> {
        LiveQueryEngine(heartbeat: nil).register(
            "notes", query: NoteQuery.self, key: { "\"\($0.id)\"" }, encode: { _ in [] },
            source: { (Self.notes, 10) }, narrow: index)
    }

    @Test func aQueryTakesItsItemsFromAnIndexThatShowsTheSameWrites() {
        let asked = Mutex(0)
        let notes = collection { query in
            asked.withLock { $0 += 1 }
            // In any order: the collection puts them in its own.
            return (Self.members(of: query).reversed(), 10)
        }
        let query = NoteQuery(groups: [1, 2])
        let snapshot = notes.snapshot(for: query)
        #expect(snapshot?.id == 10)
        #expect(snapshot?.entries.map(\.item) == Self.members(of: query))
        #expect(snapshot?.entries.map(\.rank) == Self.members(of: query).map { $0.rank })
        #expect(asked.withLock { $0 } == 1)
    }

    /// An index a write reached before the collection (`ahead`), one whose item differs from the collection's,
    /// and a query no index serves.
    @Test(arguments: ["ahead", "changed", "none"])
    func anIndexThatDoesNotShowTheSameWritesIsNotUsed(_ index: String) {
        let notes = collection { query in
            switch index {
            case "ahead": return (Self.members(of: query), 11)
            case "changed": return (Self.members(of: query).map { Note(id: $0.id, group: $0.group, rank: -1) }, 10)
            default: return nil
            }
        }
        let snapshot = notes.snapshot(for: NoteQuery(groups: [1]))
        #expect(snapshot?.id == 10)
        // Every item, in the collection's order: the query's own filter then picks its items.
        #expect(snapshot?.entries.map(\.item) == Self.notes)
    }
}
