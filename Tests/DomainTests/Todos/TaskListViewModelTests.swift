import Dispatch
import Domain
import Reactive
import Synchronization
import Testing

/// Seed 004's `TaskListViewModel` on an in-memory store.
@Suite struct TaskListViewModelTests {
    private let buyMilk = Todo(id: 1, title: "Buy Milk", completed: false)

    @Test func replaysTheStoredTasksToANewSubscriber() throws {
        let model = try TaskListViewModel(store: InMemoryTodoStore())
        let history = EventHistory(model.tasks)
        #expect(history.all == [[buyMilk]])
    }

    @Test func aCommittedChangeEmitsTheListWithItsJournalIdAndWritesNoStore() throws {
        let store = InMemoryTodoStore()
        let model = try TaskListViewModel(store: store)
        let versions = EventHistory(model.versions)
        let walk = Todo(id: 7, title: "Walk the dog", completed: false)
        model.committed.send(Committed(seq: 41, change: .upsert(walk)))
        model.committed.send(Committed(seq: 42, change: .delete(id: 1)))
        #expect(
            versions.all == [
                TaskListVersion(seq: nil, todos: [buyMilk]), TaskListVersion(seq: 41, todos: [buyMilk, walk]),
                TaskListVersion(seq: 42, todos: [walk]),
            ])
        #expect(model.currentTasks == [walk])
        #expect(store.all() == [buyMilk])  // committed elsewhere: the journal holds it
    }

    @Test func addNewTaskKeepsTitlesLongerThanThreeCharactersAndEmitsTheNewList() throws {
        let store = InMemoryTodoStore()
        let model = try TaskListViewModel(store: store)
        let history = EventHistory(model.tasks)
        model.addNewTask.send("abc")
        model.addNewTask.send("   ab ")
        model.addNewTask.send("  Walk the dog ")
        let walk = Todo(id: 2, title: "Walk the dog", completed: false)
        #expect(history.all == [[buyMilk], [buyMilk, walk]])
        #expect(store.all() == [buyMilk, walk])
    }

    @Test func addGoesThroughAddNewTaskAndReturnsWhatItsSinkStored() throws {
        let model = try TaskListViewModel(store: InMemoryTodoStore())
        let sent = EventHistory(model.addNewTask)
        let history = EventHistory(model.tasks)
        let todo = try model.add(title: " Feed the cat ")
        #expect(todo == Todo(id: 2, title: "Feed the cat", completed: false))
        #expect(sent.all == [" Feed the cat "])
        #expect(history.all == [[buyMilk], [buyMilk, todo]])
    }

    @Test(arguments: [
        ("abc", TodoError.titleTooShort), ("   ab ", .titleTooShort),
        (String(repeating: "z", count: 501), .titleTooLong),
    ])
    func addRefusesWhatTheFilterDrops(_ title: String, reason: TodoError) throws {
        let model = try TaskListViewModel(store: InMemoryTodoStore())
        let history = EventHistory(model.tasks)
        #expect(throws: reason) { try model.add(title: title) }
        #expect(history.all == [[buyMilk]])
    }

    @Test func addBeyondTheLimitIsRefusedAndChangesNothing() throws {
        let store = InMemoryTodoStore()
        let model = try TaskListViewModel(store: store, maxCount: 3)
        let history = EventHistory(model.tasks)
        _ = try model.add(title: "second")
        _ = try model.add(title: "third")
        #expect(throws: TodoError.tooManyTodos(limit: 3)) { try model.add(title: "fourth") }
        model.addNewTask.send("fifth")
        #expect(store.all().map(\.title) == ["Buy Milk", "second", "third"])
        #expect(history.all.count == 3)
        // A delete makes room again; updates are not adds.
        _ = try model.update(id: 2, title: "second, renamed")
        try model.delete(id: 3)
        #expect(try model.add(title: "fourth").id == 4)
    }

    @Test func updateChangesTitleAndCompletionWithTheSameRule() throws {
        let store = InMemoryTodoStore()
        let model = try TaskListViewModel(store: store)
        let history = EventHistory(model.tasks)
        let done = try model.update(id: 1, completed: true)
        let renamed = try model.update(id: 1, title: "  Buy oat milk ")
        #expect(done == Todo(id: 1, title: "Buy Milk", completed: true))
        #expect(renamed == Todo(id: 1, title: "Buy oat milk", completed: true))
        #expect(throws: TodoError.titleTooShort) { try model.update(id: 1, title: "ab") }
        #expect(throws: TodoError.notFound(id: 9)) { try model.update(id: 9, completed: true) }
        #expect(history.all == [[buyMilk], [done], [renamed]])
        #expect(store.all() == [renamed])
    }

    @Test func deleteRemovesTheTaskAndEmits() throws {
        let store = InMemoryTodoStore()
        let model = try TaskListViewModel(store: store)
        let history = EventHistory(model.tasks)
        try model.delete(id: 1)
        #expect(throws: TodoError.notFound(id: 1)) { try model.delete(id: 1) }
        #expect(history.all == [[buyMilk], []])
        #expect(model.todo(id: 1) == nil)
        #expect(try model.add(title: "After the delete").id == 2)
    }

    @Test func aStoreFailureChangesNothingAndSaysSo() throws {
        let model = try TaskListViewModel(store: FailingTodoStore())
        let history = EventHistory(model.tasks)
        #expect(throws: TodoError.storage("disk I/O error")) { try model.add(title: "Walk the dog") }
        #expect(throws: TodoError.storage("disk I/O error")) { try model.update(id: 1, completed: true) }
        #expect(throws: TodoError.storage("disk I/O error")) { try model.delete(id: 1) }
        #expect(history.all == [[buyMilk]])
        #expect(model.currentTasks == [buyMilk])
    }

    @Test func concurrentAddsEachGetTheirOwnTodoAndEmissionsOnlyGrow() async throws {
        let model = try TaskListViewModel(store: InMemoryTodoStore())
        let history = EventHistory(model.tasks)
        let todos = try await withThrowingTaskGroup(of: Todo.self) { group in
            for index in 0..<64 {
                group.addTask { try model.add(title: "Task number \(index)") }
            }
            return try await group.reduce(into: [Todo]()) { $0.append($1) }
        }
        #expect(Set(todos.map(\.id)).count == 64)
        #expect(Set(todos.map(\.title)) == Set((0..<64).map { "Task number \($0)" }))
        let counts = history.all.map(\.count)
        #expect(counts == Array(1...65))
        #expect(history.all.last?.map(\.id) == Array(1...65))
    }

    @Test func addsFromPlainThreadsOutsideAnyTaskGetTheirOwnResult() throws {
        // The server calls add(title:) on libevent threads, where no Swift task is running.
        let model = try TaskListViewModel(store: InMemoryTodoStore())
        let results = Mutex<[Int: Todo]>([:])
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            if let todo = try? model.add(title: "Thread task \(index)") {
                results.withLock { $0[index] = todo }
            }
        }
        let todos = results.withLock { $0 }
        #expect(todos.count == 32)
        #expect(todos.allSatisfy { index, todo in todo.title == "Thread task \(index)" })
        #expect(Set(todos.values.map(\.id)).count == 32)
    }
}
