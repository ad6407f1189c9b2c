import Dispatch
import Domain
import Reactive
import Support
import Synchronization
import Testing

/// Seed 004's `TaskListViewModel` on a journal: its inputs judge a write and hand it on; only a committed
/// change, sent back into `committed`, changes the list.
@Suite struct TaskListViewModelTests {
    private let buyMilk = Todo(id: 1, title: "Buy Milk", completed: false)

    @Test func replaysTheListItStartedWithToANewSubscriber() {
        let model = RecordingJournal().makeList(todos: [buyMilk])
        let history = EventHistory(model.tasks)
        #expect(history.all == [[buyMilk]])
    }

    @Test func aCommittedChangeEmitsTheListWithItsJournalIdAndTheChange() {
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [buyMilk])
        let versions = EventHistory(model.versions)
        let walk = Todo(id: 7, title: "Walk the dog", completed: false)
        model.committed.send(Committed(seq: 41, change: .upsert(walk)))
        model.committed.send(Committed(seq: 42, change: .delete(id: 1)))
        model.committed.send(Committed(seq: 43, change: .delete(id: 1)))
        #expect(
            versions.all == [
                Versioned(seq: nil, change: nil, [buyMilk]),
                Versioned(seq: 41, change: .inserted(walk, at: 1), [buyMilk, walk]),
                Versioned(seq: 42, change: .deleted(buyMilk, at: 0), [walk]),
                Versioned(seq: 43, change: .unchanged, [walk]),
            ])
        #expect(model.currentTasks == [walk])
        #expect(model.todo(id: 7) == walk && model.todo(id: 1) == nil && model.todo(id: 8) == nil)
        #expect(journal.writes.isEmpty)  // committed elsewhere: nothing handed on
    }

    @Test func addNewTaskHandsOnTitlesLongerThanThreeCharactersTrimmed() {
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [buyMilk])
        let history = EventHistory(model.tasks)
        model.addNewTask.send("abc")
        model.addNewTask.send("   ab ")
        model.addNewTask.send("  Walk the dog ")
        #expect(journal.writes == [.insert(title: "Walk the dog", completed: false)])
        #expect(history.all == [[buyMilk], [buyMilk, Todo(id: 2, title: "Walk the dog", completed: false)]])
    }

    @Test func theListChangesOnlyWhenTheJournalCommitted() {
        let journal = RecordingJournal(echoes: false)
        let model = journal.makeList(todos: [buyMilk])
        let history = EventHistory(model.tasks)
        model.addNewTask.send("Walk the dog")
        #expect(journal.writes == [.insert(title: "Walk the dog", completed: false)])
        #expect(history.all == [[buyMilk]])
    }

    @Test func addGoesThroughAddNewTaskToTheCallersCommit() throws {
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [buyMilk])
        let sent = EventHistory(model.addNewTask)
        let handed = Mutex<[TodoWrite]>([])
        try model.add(title: " Feed the cat ", completed: true) { write in handed.withLock { $0.append(write) } }
        #expect(sent.all == [" Feed the cat "])
        #expect(handed.withLock { $0 } == [.insert(title: "Feed the cat", completed: true)])
        #expect(journal.writes.isEmpty)  // the caller's commit, not the list's own
    }

    @Test(arguments: [
        ("abc", TodoError.titleTooShort), ("   ab ", .titleTooShort),
        (String(repeating: "z", count: 501), .titleTooLong), ("Tab\there", .titleInvalid),
    ])
    func addRefusesWhatTheFilterDropsAndHandsNothingOn(_ title: String, reason: TodoError) {
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [buyMilk])
        #expect(throws: reason) { try model.add(title: title, commit: journal.commit) }
        #expect(journal.writes.isEmpty)
        #expect(model.currentTasks == [buyMilk])
    }

    @Test func addBeyondTheLimitIsRefusedAndHandsNothingOn() throws {
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [buyMilk], maxCount: 3)
        try model.add(title: "second", commit: journal.commit)
        try model.add(title: "third", commit: journal.commit)
        #expect(throws: TodoError.tooManyTodos(limit: 3)) { try model.add(title: "fourth", commit: journal.commit) }
        model.addNewTask.send("fifth")
        #expect(model.currentTasks.map(\.title) == ["Buy Milk", "second", "third"])
        #expect(journal.writes.count == 2)
        // A committed delete makes room again.
        model.delete(id: 3, commit: journal.commit)
        try model.add(title: "fourth", commit: journal.commit)
        #expect(model.currentTasks.map(\.title) == ["Buy Milk", "second", "fourth"])
    }

    @Test func updateHandsOnTheChangeWithTheTitleRule() throws {
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [buyMilk])
        let history = EventHistory(model.tasks)
        try model.update(id: 1, completed: true, commit: journal.commit)
        try model.update(id: 1, title: "  Buy oat milk ", commit: journal.commit)
        #expect(throws: TodoError.titleTooShort) { try model.update(id: 1, title: "ab", commit: journal.commit) }
        #expect(
            journal.writes == [
                .update(id: 1, title: nil, completed: true), .update(id: 1, title: "Buy oat milk", completed: nil),
            ])
        let done = Todo(id: 1, title: "Buy Milk", completed: true)
        #expect(history.all == [[buyMilk], [done], [Todo(id: 1, title: "Buy oat milk", completed: true)]])
    }

    @Test func deleteHandsOnTheDeletionAndTheCommittedOneEmits() {
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [buyMilk])
        let history = EventHistory(model.tasks)
        model.delete(id: 1, commit: journal.commit)
        #expect(journal.writes == [.delete(id: 1)])
        #expect(history.all == [[buyMilk], []])
        #expect(model.todo(id: 1) == nil)
    }

    @Test func addsFromPlainThreadsEachReachTheirOwnCommit() {
        // The server calls add(title:commit:) on libevent threads, where no Swift task is running; each
        // request's commit carries its own answer, so a title must never reach another request's commit.
        let journal = RecordingJournal()
        let model = journal.makeList(todos: [])
        let handed = Mutex<[Int: [TodoWrite]]>([:])
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            try? model.add(title: "Thread task \(index)") { write in
                handed.withLock { $0[index, default: []].append(write) }
                journal.commit(write)
            }
        }
        let writes = handed.withLock { $0 }
        #expect(writes.count == 32)
        #expect(
            writes.allSatisfy { index, writes in writes == [.insert(title: "Thread task \(index)", completed: false)] })
        #expect(Set(model.currentTasks.map(\.id)).count == 32)
    }
}
