import Domain
import Storage
import Testing

/// The seeds' todos as one collection of the generic journal entry: what a server applies from an entry is
/// the change that was committed.
@Suite struct JournalChangeTests {
    @Test func aTodoChangeIsAnItemOfTheTodosCollectionAndComesBackUnchanged() {
        let walk = Todo(id: 7, title: "Walk the \"dog\" ☂", completed: true)
        let upsert = JournalChange(TodoChange.upsert(walk))
        #expect(upsert.collection == "todos" && upsert.id == "7")
        #expect(upsert.document == #"{"completed":true,"id":7,"title":"Walk the \"dog\" ☂"}"#)
        #expect(upsert.todoChange == .upsert(walk))

        let delete = JournalChange(TodoChange.delete(id: 7))
        #expect(delete.id == "7" && delete.document == nil && delete.todoChange == .delete(id: 7))

        // The whole list (an instance that fell behind retention) is the collection without an id.
        let all = JournalChange(TodoChange.all([walk, Todo(id: 9, title: "Buy Milk")]))
        #expect(all.id == nil && all.todoChange == .all([walk, Todo(id: 9, title: "Buy Milk")]))
        #expect(JournalChange(TodoChange.all([])).todoChange == .all([]))
    }

    @Test func anEntryOfAnotherCollectionOrWithoutATodoIsNoTodoChange() {
        #expect(JournalChange.input(topic: "frameworks", json: #"{"name":"Combine"}"#).todoChange == nil)
        #expect(JournalChange(collection: "posts", id: "1", document: #"{"id":1}"#).todoChange == nil)
        #expect(JournalChange(collection: "todos", id: "1", document: #"{"name":"x"}"#).todoChange == nil)
        #expect(JournalChange(collection: "todos", id: "one", document: nil).todoChange == nil)
    }
}
