// Seed 003: the debounced search ViewModel, as written in the post but for
// `import Combine` → `import Reactive`; marked `// CHANGED:` are the injected scheduler (RunLoop.main → a
// virtual-time TestScheduler in the test), the Alamofire call (a fake APIService) and UIKit's data source (a list).
import Foundation
import Reactive
import ReactiveTesting
import Testing

struct Movies: Codable, Hashable {
    let id: String
    let resultType: String
    let image: String
    let title, description: String
}

// CHANGED: stands in for the post's Alamofire-backed APIService; records each search it is asked for.
final class APIService {
    var searches: [String] = []
    var catalogue: [Movies] = []

    func fetchMovies(of keyword: String) -> AnyPublisher<[Movies], any Error> {
        searches.append(keyword)
        let found = catalogue.filter { $0.title.localizedCaseInsensitiveContains(keyword) }
        return Future { promise in promise(.success(found)) }.eraseToAnyPublisher()
    }
}

// CHANGED: generic over the scheduler the post hard-codes as RunLoop.main.
class ViewModel<S: Scheduler> {
    var cancellables = Set<AnyCancellable>() // 메모리 해제를 위한 Cancellable
    @Published var keyword: String = ""       // 1.
    // CHANGED: the diffable data source's snapshot becomes the list it would show.
    var shown: [Movies] = []
    let api: APIService

    init(scheduler: S, api: APIService) {
        self.api = api
        $keyword.receive(on: scheduler)
        .debounce(for: .seconds(0.5), scheduler: scheduler)  // 2.
        .sink { (_) in
          self.searchMovies()
        }.store(in: &cancellables)
    }

    func searchMovies() {
        api.fetchMovies(of: keyword)
          .sink { completion in
            switch completion {
            case .finished:
              print("ViewModel searchMovies finished")
            case .failure(let error):
              print("ViewModel searchMovies failure: \(error.localizedDescription)")
            }
          } receiveValue: { movies in
            self.shown = movies
          }
          .store(in: &cancellables)
    }
}

@Suite struct Seed003SearchViewModelTests {
    private static func movie(_ title: String) -> Movies {
        Movies(id: title, resultType: "Title", image: "", title: title, description: "")
    }

    @Test func typingQuicklySearchesOnceForTheLastKeywordAfterHalfASecond() {
        let scheduler = DispatchQueue.test
        let api = APIService()
        api.catalogue = [Self.movie("Avatar"), Self.movie("Avengers"), Self.movie("Up")]
        let viewModel = ViewModel(scheduler: scheduler, api: api)

        for (index, keyword) in ["a", "av", "ave"].enumerated() {
            if index > 0 { scheduler.advance(by: .milliseconds(200)) }
            viewModel.keyword = keyword
        }
        scheduler.advance(by: .milliseconds(499))
        #expect(api.searches == [])  // still typing, as far as the debounce knows

        scheduler.advance(by: .milliseconds(1))
        #expect(api.searches == ["ave"])
        #expect(viewModel.shown.map(\.title) == ["Avengers"])
    }

    @Test func aPauseBetweenKeywordsSearchesForEach() {
        let scheduler = DispatchQueue.test
        let api = APIService()
        api.catalogue = [Self.movie("Avatar"), Self.movie("Up")]
        let viewModel = ViewModel(scheduler: scheduler, api: api)
        scheduler.advance(by: .seconds(1))  // the initial "" settles too
        viewModel.keyword = "up"
        scheduler.advance(by: .seconds(1))
        viewModel.keyword = "ava"
        scheduler.advance(by: .seconds(1))
        #expect(api.searches == ["", "up", "ava"])
        #expect(viewModel.shown.map(\.title) == ["Avatar"])
    }
}
