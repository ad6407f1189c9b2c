import Domain
import Foundation
import Testing

@testable import Server
@testable import Storage

/// `SeedRewind`: a restarted seeds' server takes its todos back before the newest entries of its SQLite store
/// (each keeps the item before it), which it then sends through its view models again.
@Suite final class SeedRewindTests {
    private let directory: URL
    private var path: String { directory.appendingPathComponent("seeds.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-rewind-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    private let start = [Todo(id: 1, title: "Buy Milk", completed: false)]

    /// The seeds' store holding `start`, then `changes` committed one by one; the todos after them.
    private func written(_ changes: [JournalChange]) throws -> (SQLiteDocumentJournal, [Todo]) {
        let store = try SQLiteDocumentJournal(path: path, holding: .items)
        _ = try store.commit([JournalWrite(changes: start.map { JournalChange(.upsert($0)) })])
        var todos = start
        for change in changes {
            _ = try store.commit([JournalWrite(changes: [change])])
            if let todoChange = change.todoChange { todos = todoChange.applied(to: todos) }
        }
        return (store, todos)
    }

    private let changes: [JournalChange] = [
        JournalChange(.upsert(Todo(id: 2, title: "Walk the dog", completed: false))),
        .input(topic: "frameworks", json: #"{"name":"Combine"}"#),
        JournalChange(.upsert(Todo(id: 2, title: "Walk the dog", completed: true))),
        .input(topic: "frameworks", json: #"{"name":"SwiftUI"}"#),
        JournalChange(.delete(id: 1)),
    ]

    @Test func theTodosGoBackBeforeEveryEntryAndTheEntriesComeOldestFirstWithTheirIds() throws {
        let (store, current) = try written(changes)
        let recent = try store.recent(limit: 10, bytes: 1 << 30)
        let rewind = SeedRewind(recent, todos: current, count: 10, bytes: 1 << 20)
        // A new store holds the first todo: the list before the first entry (which wrote it again).
        #expect(rewind.todos == start)
        #expect(rewind.entries.map(\.seq) == recent.reversed().map(\.seq))
        #expect(
            rewind.entries.map(\.change.collection) == ["todos", "todos", "frameworks", "todos", "frameworks", "todos"])
        // Sent again in order, the entries make the list the store holds.
        var todos = rewind.todos
        for entry in rewind.entries { if let change = entry.change.todoChange { todos = change.applied(to: todos) } }
        #expect(todos == current)
    }

    @Test func theWalkKeepsTheNewestWithinTheLogsBounds() throws {
        let (store, current) = try written(changes)
        let recent = try store.recent(limit: 10, bytes: 1 << 30)
        let three = SeedRewind(recent, todos: current, count: 3, bytes: 1 << 20)
        #expect(three.entries.map(\.seq) == recent.prefix(3).reversed().map(\.seq))
        // Before the update of todo 2: it was not done yet, and todo 1 was still there.
        #expect(three.todos == start + [Todo(id: 2, title: "Walk the dog", completed: false)])
        // The newest always, even when its list alone is over the bound.
        #expect(SeedRewind(recent, todos: current, count: 10, bytes: 1).entries.count == 1)
    }

    @Test func aDeleteWhoseTodoIsNotKeptStopsTheWalk() throws {
        let (store, current) = try written(changes)
        var recent = try store.recent(limit: 10, bytes: 1 << 30)
        // As an entry of an older server: the delete without the todo before it.
        recent[0].before = nil
        let rewind = SeedRewind(recent, todos: current, count: 10, bytes: 1 << 20)
        #expect(rewind.entries.isEmpty)
        #expect(rewind.todos == current)
    }
}
