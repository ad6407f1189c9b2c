import Domain
import Storage
import StrictJSON
import Testing

@testable import Server

/// A todo as the seeds' store holds it: built from its fields, it is byte for byte the JSON text the journal
/// has always held for it (other servers on one PostgreSQL, and restarts, read those bytes), and it reads back
/// as the same todo; an item the store did not write still decodes from its text.
@Suite struct SeedStoreItemsTests {
    private static let todos = [
        Todo(id: 1, title: "Buy Milk"),
        Todo(id: 42, title: "say \"hi\" / <script> \\ tab\there", completed: true),
        Todo(id: 7, title: "日本語 🐈 Tiếng Việt \u{7F} \u{1}"),
        Todo(id: Int(Int32.max) + 5, title: "", completed: false),
    ]

    @Test(arguments: todos) func aTodosItemIsTheJSONTextItsEntryHeld(todo: Todo) throws {
        let text = try #require(JournalChange(TodoChange.upsert(todo)).document)
        guard case .object(let parsed) = try JSONValue(parsing: Array(text.utf8), maxDepth: 256) else {
            Issue.record("not an object: \(text)")
            return
        }
        let stored = SeedStore.stored(todo)
        #expect(stored.bytes == parsed.compactBytes)
        #expect(stored.id == SeedStore.id(todo.id))
        #expect(SeedStore.todo(stored.object) == todo)
        #expect(SeedStore.todo(parsed) == todo)
    }

    @Test func anItemInAnotherOrderOrNotATodoReadsAsItsTextSays() throws {
        let reordered = JSONObject([
            "title": .string("Walk"), "completed": .bool(false), "id": .integer(3),
        ])
        #expect(SeedStore.todo(reordered) == Todo(id: 3, title: "Walk"))
        let noTitle = JSONObject(["completed": .bool(false), "id": .integer(3), "done": .bool(true)])
        #expect(SeedStore.todo(noTitle) == nil)
        let textID = JSONObject(["completed": .bool(false), "id": .string("3"), "title": .string("Walk")])
        #expect(SeedStore.todo(textID) == nil)
        #expect(SeedStore.todo(nil) == nil)
    }
}
