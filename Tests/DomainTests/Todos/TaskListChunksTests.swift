import Domain
import Reactive
import Support
import Testing

/// The task list in chunks (`ChunkedList<Todo>`): it holds what an array given the same changes holds, and
/// a committed write leaves every chunk but the one it touched shared with the list before it, which the
/// snapshot, the encoder and the hub still hold.
@Suite struct TaskListChunksTests {
    @Test(arguments: [1, 2, 3, 4])
    func randomChangesLeaveTheListAnArrayWouldHold(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let start = (1...600).map { Todo(id: $0 * 2, title: "todo \($0)") }
        var array = start
        var chunked = ChunkedList(start)
        for step in 0..<3000 {
            let change: TodoChange
            // NB: ids among the list's and between them, so upserts insert in the middle, at the ends, and update.
            let id = Int.random(in: 0...(array.count * 2 + 40), using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4: change = .upsert(Todo(id: id, title: "step \(step)", completed: step % 2 == 0))
            case 4..<8: change = .delete(id: array.isEmpty ? id : array[id % array.count].id)
            case 8: change = .delete(id: id)
            default:
                change =
                    step % 500 == 9
                    ? .all((1...Int.random(in: 1...700, using: &random)).map { Todo(id: $0, title: "all \($0)") })
                    : .upsert(Todo(id: (array.last?.id ?? 0) + 1, title: "appended \(step)"))
            }
            let kept = chunked
            let keptArray = array
            let expected = change.apply(to: &array)
            let got = change.apply(to: &chunked)
            #expect(got == expected, "step \(step): \(change)")
            #expect(Array(chunked) == array, "step \(step): \(change)")
            #expect(chunked.count == array.count && chunked.last == array.last)
            #expect(Array(kept) == keptArray, "step \(step): the list before the change changed")
            if !array.isEmpty {
                let index = Int.random(in: 0..<array.count, using: &random)
                #expect(chunked[index] == array[index])
            }
            #expect(chunked.chunkCount <= max(1, 4 * array.count / ChunkedList<Todo>.chunkCapacity + 2))
        }
    }

    @Test func aCommittedWriteCopiesOnlyTheChunkItTouches() {
        let todos = (1...10_000).map { Todo(id: $0, title: "todo \($0)") }
        let model = TaskListViewModel(todos: todos, maxCount: 20_000) { _ in }
        let versions = EventHistory(model.versions)
        model.committed.send(Committed(seq: 1, change: .upsert(Todo(id: 5_000, title: "changed"))))
        model.committed.send(Committed(seq: 2, change: .upsert(Todo(id: 10_001, title: "added"))))
        model.committed.send(Committed(seq: 3, change: .delete(id: 17)))
        let lists = versions.all.map(\.value)
        #expect(lists.count == 4)
        let chunks = lists[0].chunkCount
        #expect(chunks >= 10_000 / ChunkedList<Todo>.chunkCapacity)
        // Each version shares all of the previous one's chunks but the one its write touched (an append at
        // the end of a full last chunk starts a new one and shares them all).
        #expect(lists[1].sharedChunks(with: lists[0]) == chunks - 1)
        #expect(lists[2].sharedChunks(with: lists[1]) >= lists[1].chunkCount - 1)
        #expect(lists[3].sharedChunks(with: lists[2]) >= lists[2].chunkCount - 2)
        #expect(lists[1][4_999].title == "changed" && lists[0][4_999].title == "todo 5000")
        #expect(lists[3].count == 10_000 && !lists[3].contains { $0.id == 17 } && lists[3].last?.id == 10_001)
    }
}
