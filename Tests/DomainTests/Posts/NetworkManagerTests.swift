import Foundation
import Reactive
import Synchronization
import Testing

@testable import Domain

/// Seed 002's `NetworkManager.getData`: the URL, the status check, the decoding, and the error cases.
@Suite struct NetworkManagerTests {
    let loader = FakeLoader()

    @Test func loadsAndDecodesTheEndpointUnderTheBaseURL() throws {
        let manager = NetworkManager(baseURL: URL(string: upstreamBase), loader: loader)
        let outcome = Outcome(manager.getData(endPoint: .posts, type: Post.self))
        #expect(loader.requested == ["\(upstreamBase)/posts"])
        #expect(outcome.result == nil, "a Future waits for the download")
        loader.respond("\(upstreamBase)/posts", body: upstreamPostsJSON)
        #expect(try outcome.result?.get() == [Post(userId: 1, id: 7, title: "t", body: "b")])
    }

    static let failures: [(String, @Sendable (FakeLoader) -> Void, NetworkError)] = [
        ("500", { $0.respond("\(upstreamBase)/posts", status: 500, body: Data("{}".utf8)) }, .responseError),
        ("404", { $0.respond("\(upstreamBase)/posts", status: 404, body: upstreamPostsJSON) }, .responseError),
        ("garbage", { $0.respond("\(upstreamBase)/posts", body: Data("<html>".utf8)) }, .decodingError),
        ("wrong shape", { $0.respond("\(upstreamBase)/posts", body: Data(#"{"posts":[]}"#.utf8)) }, .decodingError),
        ("timeout", { $0.fail("\(upstreamBase)/posts", .timedOut) }, .timeout),
        ("unreachable", { $0.fail("\(upstreamBase)/posts", .cannotConnect) }, .unknown),
    ]

    @Test(arguments: failures)
    func sortsFailuresIntoNetworkErrors(name: String, answer: @Sendable (FakeLoader) -> Void, expected: NetworkError) {
        let manager = NetworkManager(baseURL: URL(string: upstreamBase), loader: loader)
        let outcome = Outcome(manager.getData(endPoint: .posts, type: Post.self))
        answer(loader)
        #expect(outcome.result == .failure(expected), "\(name)")
    }

    @Test(arguments: [nil, "ftp://upstream.test", "/relative"])
    func aMissingOrNonHTTPBaseIsAnInvalidURL(upstreamBase: String?) {
        let manager = NetworkManager(baseURL: upstreamBase.flatMap(URL.init(string:)), loader: loader)
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
