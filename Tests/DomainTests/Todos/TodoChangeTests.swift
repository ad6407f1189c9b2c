import Domain
import Support
import Testing

/// `TodoChange.apply(to:)`: the list a change leaves (ordered by id), and what it did there, with the place,
/// as the snapshot, `/events` and the live queries follow it.
@Suite struct TodoChangeTests {
    /// The list after `change`, found item by item (what the view model did before it searched by id).
    private static func reference(_ change: TodoChange, _ list: [Todo]) -> [Todo] {
        switch change {
        case .upsert(let todo):
            var list = list.filter { $0.id != todo.id }
            list.insert(todo, at: list.firstIndex { $0.id > todo.id } ?? list.endIndex)
            return list
        case .delete(let id):
            return list.filter { $0.id != id }
        case .all(let todos):
            return todos
        }
    }

    @Test func randomChangesLeaveTheListAndTellWhatTheyDidWhere() {
        var list = (1...20).map { Todo(id: $0 * 3, title: "todo \($0)", completed: false) }
        var seed: UInt64 = 7
        for step in 0..<500 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let id = Int((seed >> 33) % 90)
            let change: TodoChange =
                switch step % 5 {
                case 0, 1: .upsert(Todo(id: id, title: "todo \(step)", completed: step % 2 == 0))
                case 2: .upsert(list.first { $0.id >= id } ?? Todo(id: id, title: "same", completed: false))
                case 3: .delete(id: id)
                default: step % 100 == 4 ? .all(Array(list.prefix(10))) : .delete(id: list.first?.id ?? 0)
                }
            let before = list
            let said = change.apply(to: &list)
            #expect(list == Self.reference(change, before), "step \(step)")
            switch said {
            case .inserted(let todo, let index):
                #expect(list.count == before.count + 1 && list[index] == todo && !before.contains { $0.id == todo.id })
            case .updated(let todo, let index):
                #expect(list.count == before.count && list[index] == todo && before[index].id == todo.id)
                #expect(before[index] != todo)
            case .deleted(let todo, let index):
                #expect(list.count == before.count - 1 && before[index] == todo)
            case .unchanged:
                #expect(list == before)
            case nil:
                guard case .all = change else { Issue.record("step \(step): no change said for \(change)"); break }
            }
        }
    }
}
