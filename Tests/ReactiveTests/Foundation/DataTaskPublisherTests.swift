import Foundation
import Reactive
import ReactiveNetworking
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct DataTaskPublisherTests {
    @Test func aClosedPortFailsWithAURLError() throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/nothing"))
        let failure = Locked<URLError?>(nil)
        let token = URLSession.shared.dataTaskPublisher(for: url).sink(
            receiveCompletion: { completion in
                if case .failure(let error) = completion { failure.mutate { $0 = error } }
            },
            receiveValue: { _ in }
        )
        #expect(waitUntil { failure.value != nil })
        token.cancel()
    }

    @Test func cancelBeforeDemandSendsNoRequest() throws {
        let server = try LoopbackServer(files: ["x": Data("1".utf8)])
        let url = try #require(URL(string: server.baseURL + "x"))
        let tracker = TrackingSubscriber<Int, URLError>(initialDemand: .none)
        URLSession.shared.dataTaskPublisher(for: url).map { $0.data.count }.subscribe(tracker)
        tracker.cancel()
        tracker.request(.max(1))
        _ = waitUntil(seconds: 0.3) { tracker.events.count > 1 }
        #expect(tracker.events == [.subscription])
    }
}
