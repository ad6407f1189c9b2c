import Domain
import Testing

/// `TaskListViewModel.judge`: the one judgement of a todo write, which the list's `addNewTask` and the seeds'
/// store (on the list it commits to) both ask.
@Suite struct TaskListJudgementTests {
    private let list = [Todo(id: 1, title: "Buy Milk", completed: false), Todo(id: 4, title: "Walk the dog")]

    private func judge(_ write: TodoWrite, maxCount: Int = 10) -> Result<TodoChange, TodoError> {
        TaskListViewModel.judge(write, count: list.count, maxCount: maxCount, nextID: 9) { id in
            list.first { $0.id == id }
        }
    }

    @Test func anInsertTakesTheNextIdAndTheTitleAsTheFilterKeepsIt() {
        #expect(
            judge(.insert(title: "  Feed the cat \n", completed: true))
                == .success(
                    .upsert(
                        Todo(id: 9, title: "Feed the cat", completed: true))))
    }

    @Test func aTitleTheFilterDropsIsRefusedWithItsReason() {
        #expect(judge(.insert(title: " ab ", completed: false)) == .failure(.titleTooShort))
        #expect(judge(.update(id: 1, title: "a\u{0}b c d", completed: nil)) == .failure(.titleInvalid))
    }

    @Test func aFullListRefusesAnInsertOnlyAtItsLimit() {
        #expect(judge(.insert(title: "One more", completed: false), maxCount: 2) == .failure(.tooManyTodos(limit: 2)))
        #expect(judge(.insert(title: "One more", completed: false), maxCount: 3) != .failure(.tooManyTodos(limit: 3)))
        // Changing or deleting a todo of a full list is no insert.
        #expect(judge(.delete(id: 4), maxCount: 2) == .success(.delete(id: 4)))
    }

    @Test func anUpdateKeepsWhatItDoesNotGiveAndAnUnknownIdIsNotFound() {
        #expect(
            judge(.update(id: 1, title: nil, completed: true))
                == .success(
                    .upsert(
                        Todo(id: 1, title: "Buy Milk", completed: true))))
        #expect(judge(.update(id: 2, title: "Renamed", completed: nil)) == .failure(.notFound(id: 2)))
        #expect(judge(.delete(id: 2)) == .failure(.notFound(id: 2)))
    }
}
