// Seed 002: NetworkManager + PostViewModel, as written in the post but for
// `import Combine` → `import Reactive` and what Swift 6 mode and the loopback test need, each marked `// CHANGED:`.
import Foundation
import Reactive
import ReactiveNetworking
import Testing
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

class NetworkManager {
    // single 톤 패턴
    // CHANGED: `nonisolated(unsafe)` for Swift 6 mode (a non-Sendable singleton).
    nonisolated(unsafe) static let shared = NetworkManager()

    // subscriber들의 메모리를 참조 할 수 있는 저장소
    // CHANGED: the post's `Set()` lost its generic argument in the blog's HTML.
    private var cancellables = Set<AnyCancellable>()
    // CHANGED: the loopback test server instead of jsonplaceholder.typicode.com.
    nonisolated(unsafe) static var baseURL = "<https://jsonplaceholder.typicode.com/>"
    private var baseURL: String { NetworkManager.baseURL }

    // 실패 할 수 있는 Future publisher을 반환합니다.
    // CHANGED: `any Error` (ExistentialAny) instead of `Error`.
    func getData<T: Decodable>(endPoint: Endpoint, type: T.Type) -> Future<[T], any Error> {

        return Future<[T], any Error> { [weak self] promise in
            // URL 검증
            guard let self = self, let url = URL(string: self.baseURL.appending(endPoint.rawValue)) else {
                return promise(.failure(NetworkError.invalidURL))
            }

            print("URL is \(url.absoluteString)")
            // Apple에서 만들어놓은 URLSession의 publisher를 통해 URL 요청
            URLSession.shared.dataTaskPublisher(for: url)
                // api 통신 에러 처리
                .tryMap { (data, response) -> Data in
                    guard let httpResponse = response as? HTTPURLResponse, 200...299 ~= httpResponse.statusCode else {
                        throw NetworkError.responseError
                    }
                    return data
                }
                // response받은 JSON 데이터를 Object로 매핑하는 작업
                .decode(type: [T].self, decoder: JSONDecoder())
                // Returns the run loop of the main thread.
                .receive(on: RunLoop.main)
                .sink(
                    receiveCompletion: { (completion) in
                        if case let .failure(error) = completion {
                            switch error {
                            case let decodingError as DecodingError:
                                promise(.failure(decodingError))
                            case let apiError as NetworkError:
                                promise(.failure(apiError))
                            default:
                                promise(.failure(NetworkError.unknown))
                            }
                        }
                    },
                    receiveValue: {
                        // data 요청,변환 성공과 데이터를 전달함.
                        promise(.success($0))
                    }
                )
                // subscriber들을 참조하기위해 cancellables에 저장해놓음
                .store(in: &self.cancellables)
        }
    }
}

// baseURL 뒤에 붙게 될 주소 값
enum Endpoint: String {
    case posts
}

// network 에러 처리 종류
enum NetworkError: Error {
    case invalidURL
    case responseError
    case unknown
}

// network 에러 처리 description
extension NetworkError: LocalizedError {
    var errorDescription: String? {
        switch self {
        case .invalidURL:
            return NSLocalizedString("Invalid URL", comment: "Invalid URL")
        case .responseError:
            return NSLocalizedString("Unexpected status code", comment: "Invalid response")
        case .unknown:
            return NSLocalizedString("Unknown error", comment: "Unknown error")
        }
    }
}

// JSON data에 맞는 struct 구성
public struct Post: Codable {
    var userId: Int
    var id: Int
    var title: String
    var body: String
}

class PostViewModel {
    // NetworkManager.shared.getData에 대한 subscriber을 위한 저장소.
    private var cancellables = Set<AnyCancellable>()
    // UIKi이기 때문에, CurrentValueSubject를 사용함.
    var posts = CurrentValueSubject<[Post], Never>([Post]())

    func fetchData() {
        NetworkManager.shared.getData(endPoint: .posts, type: Post.self).sink(
            receiveCompletion: {
                completion in
                switch completion {
                case .finished:
                    print("Finished")
                case .failure(let err):
                    print("Error is \(err.localizedDescription)")
                }
            },
            receiveValue: { [weak self] data in
                // networkManager의 promiss(.success($0))에서
                // $0에 해당하는 데이터를 전달받음.
                print("receiveValue")
                // posts데이터 넣어주기
                self?.posts.send(data)
            }
        )
        .store(in: &cancellables)
    }

    // 처음 생성 될 때, 데이터를 호출함.
    init() {
        fetchData()
    }
}

class AnotherListener {
    private var cancellables: Set<AnyCancellable> = .init()
    let viewModel = PostViewModel()
    // CHANGED: counts the notifications the post prints ("Post Change!"), so the test can see them.
    let changes = Locked(0)
    init() {
        print("AnotherListener is call")
        viewModel.posts.sink { [unowned self] _ in
            print("Post Change!")
            self.changes.mutate { $0 += 1 }
        }
        .store(in: &cancellables)
    }
}

private let postsJSON = Data(
    """
    [{"userId": 1, "id": 1, "title": "sunt aut facere", "body": "quia et suscipit"},
     {"userId": 1, "id": 2, "title": "qui est esse", "body": "est rerum tempore"}]
    """.utf8)

private let serverFiles = ["posts": postsJSON, "broken/posts": Data("not json".utf8)]

/// Serialized: `NetworkManager` is a singleton with one base URL.
@Suite(.serialized) struct Seed002NetworkManagerTests {
    @Test func postsArriveFromTheServerAndEverySubscriberIsNotified() throws {
        let server = try LoopbackServer(files: serverFiles)
        NetworkManager.baseURL = server.baseURL
        let viewModel = PostViewModel()
        let reloads = Locked(0)
        var cancellables = Set<AnyCancellable>()
        viewModel.posts.sink { _ in reloads.mutate { $0 += 1 } }.store(in: &cancellables)

        // The table starts empty and fills once the request finishes (delivered through `RunLoop.main`).
        // NB: waits for the sink, which hears the list after the subject holds it.
        #expect(waitUntil { reloads.value == 2 })
        #expect(viewModel.posts.value.map(\.title) == ["sunt aut facere", "qui est esse"])
        #expect(reloads.value == 2)  // the empty list, then the fetched one

        let listener = AnotherListener()
        // NB: the subject holds the new value before its sink has printed it: wait for the notification itself,
        // and keep the listener (its sink reads it `unowned`) until then.
        #expect(waitUntil { listener.changes.value == 2 })
        #expect(listener.viewModel.posts.value.count == 2)
        #expect(listener.changes.value == 2)
        withExtendedLifetime(listener) {}
    }

    @Test func aStatusErrorFailsTheFutureWithResponseError() throws {
        let server = try LoopbackServer(files: serverFiles)
        NetworkManager.baseURL = server.baseURL + "missing/"
        let failure = Locked<(any Error)?>(nil)
        var cancellables = Set<AnyCancellable>()
        NetworkManager.shared.getData(endPoint: .posts, type: Post.self)
            .sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { failure.mutate { $0 = error } }
                },
                receiveValue: { _ in }
            )
            .store(in: &cancellables)
        #expect(waitUntil { failure.value != nil })
        #expect(failure.value as? NetworkError == .responseError)
        #expect(failure.value?.localizedDescription == "Unexpected status code")
    }

    @Test func aBodyThatIsNotJSONFailsWithTheDecodingError() throws {
        let server = try LoopbackServer(files: serverFiles)
        NetworkManager.baseURL = server.baseURL + "broken/"
        let failure = Locked<(any Error)?>(nil)
        var cancellables = Set<AnyCancellable>()
        NetworkManager.shared.getData(endPoint: .posts, type: Post.self)
            .sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { failure.mutate { $0 = error } }
                },
                receiveValue: { _ in }
            )
            .store(in: &cancellables)
        #expect(waitUntil { failure.value != nil })
        #expect(failure.value is DecodingError)
    }
}

/// The view model test an iOS developer writes for seed 002: the table may only be touched on the main thread.
// NB: XCTest, not Swift Testing: its methods run on the main thread and `wait(for:)` runs the main run loop.
final class Seed002MainThreadTests: XCTestCase {
    func testPostsReachTheViewModelOnTheMainThread() throws {
        let server = try LoopbackServer(files: serverFiles)
        NetworkManager.baseURL = server.baseURL
        let viewModel = PostViewModel()
        let filled = expectation(description: "posts arrive")
        var threads: [Bool] = []
        let token = viewModel.posts.dropFirst().sink { posts in
            threads.append(Thread.isMainThread)
            if posts.count == 2 { filled.fulfill() }
        }
        wait(for: [filled], timeout: 30)
        XCTAssertEqual(threads, [true])
        token.cancel()
    }
}
