import Support
import Testing

@testable import Server

/// A seed list's live collection fed with the view model's carrier (`publish(id:version:)`): a write given
/// with its change is one edit by key; a list without one, or in an order its change cannot give, is
/// compared whole.
@Suite struct LiveCollectionVersionTests {
    typealias Note = LiveQueryEngineTests.Note
    typealias NoteQuery = LiveQueryEngineTests.NoteQuery
    typealias Version = Versioned<[Note], ListChange<Note>>

    static let notes = (0..<1000).map { Note(id: "n\($0)", group: $0 % 4, rank: $0) }

    /// A collection (no source: every list is published, as a seed list's) showing `notes` at event 1.
    func collection() -> LiveCollection<NoteQuery> {
        let collection = LiveQueryEngine(heartbeat: nil).register("notes", query: NoteQuery.self) { $0.id }
        collection.publish(id: 1, version: Version(seq: nil, change: nil, Self.notes))
        return collection
    }

    @Test func aWriteGivenWithItsChangeIsOneEditByKeyWithoutComparingTheLists() {
        let notes = collection()
        // Each list given holds the changed note alone: compared with the collection, it would delete the
        // other 999 notes. Taken by its change, it touches the one note.
        let added = Note(id: "new", group: 0, rank: 1000)
        let moved = Note(id: "n500", group: 1, rank: 500)
        notes.publish(id: 2, version: Version(seq: 1, change: .inserted(added, at: 0), [added]))
        notes.publish(id: 3, version: Version(seq: 2, change: .updated(moved, at: 0), [moved]))
        notes.publish(id: 4, version: Version(seq: 3, change: .deleted(Self.notes[7], at: 0), []))
        notes.publish(id: 5, version: Version(seq: 4, change: .unchanged, []))
        let changes = notes.changes(after: 1, through: 5)
        #expect(changes?.map(\.key) == ["new", "n500", "n7"])
        #expect(changes?[0].before == nil && changes?[0].after?.item == added)
        #expect(changes?[1].before?.item == Self.notes[500] && changes?[1].after?.item == moved)
        #expect(changes?[1].before?.rank == changes?[1].after?.rank)
        #expect(changes?[2].before?.item == Self.notes[7] && changes?[2].after == nil)
        #expect(notes.newestID == 4)  // an unchanged write makes no version
        #expect(notes.snapshot()?.entries.count == 1000)
    }

    @Test func aListWithoutItsChangeIsComparedWhole() {
        let notes = collection()
        notes.publish(id: 2, version: Version(seq: 1, change: nil, Array(Self.notes.dropFirst())))
        #expect(notes.changes(after: 1, through: 2)?.map(\.key) == ["n0"])
    }

    @Test func anInsertBeforeTheLastReplacesTheCollection() {
        // A new key ranks after every other, so a note inserted before the last cannot be one edit.
        let notes = collection()
        let first = Note(id: "first", group: 0, rank: -1)
        notes.publish(id: 2, version: Version(seq: 1, change: .inserted(first, at: 0), [first] + Self.notes))
        #expect(notes.changes(after: 1, through: 2) == nil)  // replaced: no version before it to rewind to
        #expect(notes.snapshot()?.entries.map(\.item) == [first] + Self.notes)
    }
}
