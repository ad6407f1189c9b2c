import Domain
import Foundation
import Reactive
import Synchronization

/// A `DataLoader` the test answers by hand: each request waits until `respond` or `fail` is called for its URL,
/// and the loader records which requests were cancelled.
final class FakeLoader: DataLoader {
    private struct Pending {
        var url: URL
        var subject: PassthroughSubject<(data: Data, response: LoadResponse), LoadFailure>
    }

    private struct State {
        var pending: [Pending] = []
        var requested: [URL] = []
        var cancelled: [URL] = []
    }

    private let state = Mutex(State())

    /// Every URL requested, in order.
    var requested: [String] { state.withLock { $0.requested.map(\.absoluteString) } }
    /// The URLs whose download was cancelled before it answered.
    var cancelled: [String] { state.withLock { $0.cancelled.map(\.absoluteString) } }

    func dataTaskPublisher(for url: URL) -> AnyPublisher<(data: Data, response: LoadResponse), LoadFailure> {
        let subject = PassthroughSubject<(data: Data, response: LoadResponse), LoadFailure>()
        state.withLock {
            $0.pending.append(Pending(url: url, subject: subject))
            $0.requested.append(url)
        }
        return
            subject
            .handleEvents(receiveCancel: { [self] in state.withLock { $0.cancelled.append(url) } })
            .eraseToAnyPublisher()
    }

    /// Answers the oldest waiting request for `url` with `status`, `headers` and `body`.
    func respond(_ url: String, status: Int = 200, headers: [String: String] = [:], body: Data) {
        guard let subject = take(url) else { return }
        let response = LoadResponse(url: URL(string: url)!, statusCode: status, headerFields: headers)
        subject.send((data: body, response: response))
        subject.send(completion: .finished)
    }

    /// Fails the oldest waiting request for `url` (`.timedOut`, `.cannotConnect`, or any `LoadFailure`).
    func fail(_ url: String, _ failure: LoadFailure) {
        take(url)?.send(completion: .failure(failure))
    }

    private func take(_ url: String) -> PassthroughSubject<(data: Data, response: LoadResponse), LoadFailure>? {
        state.withLock { state in
            guard let index = state.pending.firstIndex(where: { $0.url.absoluteString == url }) else { return nil }
            return state.pending.remove(at: index).subject
        }
    }
}

extension LoadFailure {
    /// What the server's loader reports when nothing answers in time.
    static let timedOut = LoadFailure(.timedOut, "the download timed out")
    /// What the server's loader reports for a host that refuses or cannot be reached.
    static let cannotConnect = LoadFailure(.other, "the host could not be reached")
}
