// Seed-style Combine code, as an iOS developer writes it, with `import Combine` → `import Reactive`.
import Dispatch
import Foundation
import Reactive

/// A scheduler written against Apple's protocol: its actions are plain `@escaping () -> Void`.
final class ManualScheduler: Scheduler {
    typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
    typealias SchedulerOptions = Never

    private(set) var now = SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
    var minimumTolerance: SchedulerTimeType.Stride { .zero }
    private var queue: [(SchedulerTimeType, () -> Void)] = []

    func schedule(options: Never?, _ action: @escaping () -> Void) {
        queue.append((now, action))
    }

    func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Never?,
                  _ action: @escaping () -> Void) {
        queue.append((date, action))
    }

    func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                  tolerance: SchedulerTimeType.Stride, options: Never?, _ action: @escaping () -> Void) -> Cancellable {
        queue.append((date, action))
        return AnyCancellable {}
    }

    func advance(by stride: SchedulerTimeType.Stride) {
        now = now.advanced(by: stride)
        let due = queue.filter { $0.0 <= now }
        queue.removeAll { $0.0 <= now }
        due.forEach { $0.1() }
    }
}

class TaskListViewModel {
    let tasks = CurrentValueSubject<[String], Never>(["Buy Milk"])
    var addNewTask = PassthroughSubject<String, Never>()
    private var cancellables = Set<AnyCancellable>()

    init() {
        addNewTask
            .filter { $0.count > 3 }
            .sink { [weak self] newTask in
                guard let self = self else { return }
                self.tasks.send(self.tasks.value + [newTask])
            }
            .store(in: &cancellables)
    }
}

class SearchViewModel: ObservableObject {
    @Published var keyword = ""
    @Published var searches: [String] = []
    var cancellables = Set<AnyCancellable>()

    init(scheduler: ManualScheduler) {
        $keyword
            .dropFirst()
            .debounce(for: .milliseconds(500), scheduler: scheduler)
            .removeDuplicates()
            .sink { [weak self] keyword in self?.searches.append(keyword) }
            .store(in: &cancellables)
    }
}

func fetch(_ id: Int) -> AnyPublisher<String, Error> {
    guard id > 0 else { return Fail(error: URLError(.badURL)).eraseToAnyPublisher() }
    return Future { promise in promise(.success("post \(id)")) }.eraseToAnyPublisher()
}

var failures = 0
func check(_ condition: Bool, _ what: String) {
    if !condition {
        failures += 1
        print("FAILED: \(what)")
    }
}

let tasks = TaskListViewModel()
var seen: [[String]] = []
let token = tasks.tasks.sink { seen.append($0) }
tasks.addNewTask.send("Tea")
tasks.addNewTask.send("Walk the dog")
check(seen == [["Buy Milk"], ["Buy Milk", "Walk the dog"]], "TaskListViewModel")
token.cancel()

let scheduler = ManualScheduler()
let search = SearchViewModel(scheduler: scheduler)
search.keyword = "sw"
search.keyword = "swift"
scheduler.advance(by: .milliseconds(500))
check(search.searches == ["swift"], "debounced search")

var posts: [String] = []
var failed = false
let ids = PassthroughSubject<Int, Never>()
let subscription = ids
    .setFailureType(to: Error.self)
    .flatMap { fetch($0) }
    .catch { _ -> Just<String> in failed = true; return Just("fallback") }
    .sink(receiveCompletion: { _ in }, receiveValue: { posts.append($0) })
ids.send(1)
ids.send(0)
check(posts == ["post 1", "fallback"] && failed, "flatMap + catch")
subscription.cancel()

print(failures == 0 ? "Swift 5 client: all checks passed" : "Swift 5 client: \(failures) checks failed")
exit(failures == 0 ? 0 : 1)
