import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HandleEventsAndPrintTests {
    @Test func seesEveryEvent() {
        var log: [String] = []
        let tracker = [1].publisher.handleEvents(
            receiveSubscription: { _ in log.append("subscription") },
            receiveOutput: { log.append("output \($0)") },
            receiveCompletion: { _ in log.append("completion") },
            receiveCancel: { log.append("cancel") },
            receiveRequest: { log.append("request \($0)") }
        ).track()
        #expect(tracker.values == [1])
        #expect(log == ["subscription", "request unlimited", "output 1", "completion"])
    }

    @Test func closuresStopAtTheCompletionButLaterEventsStillReachTheDownstream() {
        var log: [String] = []
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.handleEvents(
            receiveOutput: { log.append("output \($0)") }, receiveCompletion: { _ in log.append("completion") }
        ).track()
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(log == ["output 1", "completion"])
        #expect(tracker.events == [.subscription, .value(1), .finished, .value(2), .finished])
    }

    @Test func aCancelBeforeTheSubscriptionOnlyCallsItsClosure() throws {
        var log: [String] = []
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.handleEvents(
            receiveSubscription: { _ in log.append("subscription") }, receiveCancel: { log.append("cancel") }
        ).track(initialDemand: .none)
        let handleEvents = try #require(upstream.attached as? any Subscription)
        handleEvents.cancel()
        upstream.subscribe()
        #expect(log == ["cancel", "subscription"])
        #expect(tracker.events == [.subscription])
        #expect(upstream.subscription.calls == [])
    }

    final class Lines: TextOutputStream, @unchecked Sendable {
        var text = ""
        func write(_ string: String) { text += string }
    }

    @Test func printWritesOneLinePerEventInCombinesWords() {
        let lines = Lines()
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.print("n", to: lines).track(initialDemand: .max(1), demandPerValue: .max(2))
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .finished)
        tracker.cancel()
        tracker.request(.unlimited)
        #expect(
            lines.text == """
                n: receive subscription: (RecordingSubscription)
                n: request max: (1)
                n: receive value: (1)
                n: request max: (2) (synchronous)
                n: receive finished
                n: receive cancel
                n: request unlimited

                """)
        #expect(upstream.subscription.calls == [.requested(.max(1)), .cancelled])
    }

    @Test func printPassesOnValuesThatComeBeforeTheSubscription() {
        let lines = Lines()
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.print(to: lines).track()
        upstream.send(7)
        #expect(tracker.events == [.value(7)])
        #expect(lines.text == "receive value: (7)\n")
    }
}
