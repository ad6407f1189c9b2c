import Foundation
import Reactive
import Synchronization
import Testing

@testable import Domain

/// Records a future's single outcome.
private final class Outcome<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, NetworkError>?>(nil)

    init(_ future: Future<T, NetworkError>) {
        future.subscribe(
            Subscribers.Sink(
                receiveCompletion: { [self] completion in
                    if case .failure(let error) = completion { value.withLock { $0 = .failure(error) } }
                },
                receiveValue: { [self] output in value.withLock { $0 = .success(output) } }))
    }

    var result: Result<T, NetworkError>? { value.withLock { $0 } }
}

private let base = "http://upstream.test/api"
private let postsJSON = Data(#"[{"userId":1,"id":7,"title":"t","body":"b"}]"#.utf8)

/// Seed 002's `NetworkManager.getData`: the URL, the status check, the decoding, and the error cases.
@Suite struct PipelineNetworkManagerTests {
    let loader = FakeLoader()

    @Test func loadsAndDecodesTheEndpointUnderTheBaseURL() throws {
        let manager = NetworkManager(baseURL: URL(string: base), loader: loader)
        let outcome = Outcome(manager.getData(endPoint: .posts, type: Post.self))
        #expect(loader.requested == ["\(base)/posts"])
        #expect(outcome.result == nil, "a Future waits for the download")
        loader.respond("\(base)/posts", body: postsJSON)
        #expect(try outcome.result?.get() == [Post(userId: 1, id: 7, title: "t", body: "b")])
    }

    static let failures: [(String, @Sendable (FakeLoader) -> Void, NetworkError)] = [
        ("500", { $0.respond("\(base)/posts", status: 500, body: Data("{}".utf8)) }, .responseError),
        ("404", { $0.respond("\(base)/posts", status: 404, body: postsJSON) }, .responseError),
        ("garbage", { $0.respond("\(base)/posts", body: Data("<html>".utf8)) }, .decodingError),
        ("wrong shape", { $0.respond("\(base)/posts", body: Data(#"{"posts":[]}"#.utf8)) }, .decodingError),
        ("timeout", { $0.fail("\(base)/posts", .timedOut) }, .timeout),
        ("unreachable", { $0.fail("\(base)/posts", .cannotConnectToHost) }, .unknown),
    ]

    @Test(arguments: failures)
    func sortsFailuresIntoNetworkErrors(name: String, answer: @Sendable (FakeLoader) -> Void, expected: NetworkError) {
        let manager = NetworkManager(baseURL: URL(string: base), loader: loader)
        let outcome = Outcome(manager.getData(endPoint: .posts, type: Post.self))
        answer(loader)
        #expect(outcome.result == .failure(expected), "\(name)")
    }

    @Test(arguments: [nil, "ftp://upstream.test", "/relative"])
    func aMissingOrNonHTTPBaseIsAnInvalidURL(base: String?) {
        let manager = NetworkManager(baseURL: base.flatMap(URL.init(string:)), loader: loader)
        let outcome = Outcome(manager.getData(endPoint: .photos, type: AlbumModel.self))
        #expect(outcome.result == .failure(.invalidURL))
        #expect(loader.requested.isEmpty)
    }

    @Test func errorsCarryTheSeedsMessages() {
        #expect(NetworkError.invalidURL.errorDescription == "Invalid URL")
        #expect(NetworkError.responseError.errorDescription == "Unexpected status code")
        #expect(NetworkError.unknown.errorDescription == "Unknown error")
        #expect(NetworkError.responseError.rawValue == "responseError")
    }
}

/// Seed 002's `PostViewModel` with an upstream: starts empty, replaces and emits on success, keeps on failure.
@Suite struct PipelinePostViewModelTests {
    let loader = FakeLoader()

    @Test func startsEmptyAndFetchesAtOnce() {
        let model = PostViewModel(networkManager: NetworkManager(baseURL: URL(string: base), loader: loader))
        let history = EventHistory(model.posts.map(\.count))
        #expect(loader.requested == ["\(base)/posts"])
        loader.respond("\(base)/posts", body: postsJSON)
        #expect(history.all == [0, 1])
    }

    @Test func refreshReplacesAndEmitsBeforeAnsweringThenKeepsPostsOnFailure() throws {
        let model = PostViewModel(networkManager: NetworkManager(baseURL: URL(string: base), loader: loader))
        loader.respond("\(base)/posts", body: postsJSON)
        let history = EventHistory(model.posts.map { $0.map(\.id) })

        let seenWhenAnswered = Mutex<[Int]?>(nil)
        model.refresh().subscribe(
            Subscribers.Sink(
                receiveCompletion: { _ in },
                receiveValue: { [posts = model.posts] _ in seenWhenAnswered.withLock { $0 = posts.value.map(\.id) } }))
        loader.respond("\(base)/posts", body: Data(#"[{"userId":2,"id":8,"title":"u","body":"c"}]"#.utf8))
        #expect(seenWhenAnswered.withLock { $0 } == [8], "emitted before the caller hears of it")

        for answer in [
            { self.loader.respond("\(base)/posts", status: 500, body: Data()) },
            { self.loader.respond("\(base)/posts", body: Data("nope".utf8)) },
            { self.loader.fail("\(base)/posts", .timedOut) },
        ] {
            let outcome = Outcome(model.refresh())
            answer()
            #expect(outcome.result != nil && (try? outcome.result?.get()) == nil)
            #expect(model.posts.value.map(\.id) == [8])
        }
        #expect(history.all == [[7], [8]])
    }

    @Test func withoutAnUpstreamRefreshReloadsTheEmbeddedSet() throws {
        let model = PostViewModel(posts: [])
        let outcome = Outcome(model.refresh())
        #expect(try outcome.result?.get().count == 100)
        #expect(model.posts.value.count == 100)
    }
}
