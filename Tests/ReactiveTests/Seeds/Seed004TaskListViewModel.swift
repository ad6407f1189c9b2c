// Seed 004: TaskListViewModel, both versions from the post, as written
// there but for `import Combine` → `import Reactive` (and the SwiftUI version renamed so both fit one module).
import Foundation
import Reactive
import Testing

class TaskListViewModel {
    // replace CurrentValueSubject with @Published
    let tasks = CurrentValueSubject<[String], Never>(["Buy Milk"])
//    @Published var tasks = ["Buy Milk"]
    var addNewTask = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init() {
        // data stream to create new task
        addNewTask
            .filter {$0.count > 3}
            .sink { [weak self] newTask in
                guard let self = self else { return }
//                self.tasks.append(newTask)
                self.tasks.send(self.tasks.value + [newTask])
            }
            .store(in: &cancellables)
        // get initial values at launch like from file system

        // save changes to tasks in file system
    }
}

// The post's SwiftUI version (renamed from TaskListViewModel).
class ObservableTaskListViewModel: ObservableObject {
    @Published var tasks = ["Buy Milk"]
//    let tasks = CurrentValueSubject<[String], Never>(["Buy Milk"])
    var addNewTask = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init() {
        addSubscriber()
    }

    private func addSubscriber() {
        addNewTask
            .filter{$0.count > 3}
            .sink { [weak self] task in
                guard let self = self else { return }
                self.tasks.append(task)
//                self.tasks.send(self.tasks.value + [task])
            }
            .store(in: &cancellables)
    }
}

@Suite struct Seed004TaskListViewModelTests {
    @Test func aSubscribedListSeesTheStartingTaskThenEachAcceptedAddition() {
        let viewModel = TaskListViewModel()
        var cancellables = Set<AnyCancellable>()
        var reloads: [[String]] = []
        viewModel.tasks.sink { values in reloads.append(values) }.store(in: &cancellables)

        viewModel.addNewTask.send("Walk the dog")
        viewModel.addNewTask.send("Tea")  // three characters: filtered out
        viewModel.addNewTask.send("Call mum")

        #expect(reloads == [["Buy Milk"], ["Buy Milk", "Walk the dog"], ["Buy Milk", "Walk the dog", "Call mum"]])
        #expect(viewModel.tasks.value.count == 3)
    }

    @Test func theViewModelIsReleasedWithItsSubscriptions() {
        weak var weakViewModel: TaskListViewModel?
        do {
            let viewModel = TaskListViewModel()
            weakViewModel = viewModel
            viewModel.addNewTask.send("Water plants")
        }
        #expect(weakViewModel == nil)
    }

    @Test func thePublishedVersionAnnouncesChangesBeforeTheyHappen() {
        let viewModel = ObservableTaskListViewModel()
        var cancellables = Set<AnyCancellable>()
        var seenByObserver: [[String]] = []
        viewModel.objectWillChange
            .sink { seenByObserver.append(viewModel.tasks) }  // willChange: still the old list
            .store(in: &cancellables)
        var published: [[String]] = []
        viewModel.$tasks.sink { published.append($0) }.store(in: &cancellables)

        viewModel.addNewTask.send("Buy")  // filtered
        viewModel.addNewTask.send("Buy bread")

        #expect(seenByObserver == [["Buy Milk"]])
        #expect(published == [["Buy Milk"], ["Buy Milk", "Buy bread"]])
        #expect(viewModel.tasks == ["Buy Milk", "Buy bread"])
    }
}
