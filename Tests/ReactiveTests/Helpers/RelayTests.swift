import Dispatch
import Reactive
import Testing

/// The operators that stand between an upstream and a downstream with their own subscription (`buffer`,
/// `debounce`, `throttle`, `timeout`, `receive(on:)`, `replaceEmpty`, ...) as Combine's under misuse.
@Suite struct RelayTests {
    private let upstream = ManualPublisher<Int, Never>()

    private func inner() throws -> any Subscription {
        try #require(upstream.attached as? any Subscription)
    }

    @Test func aSecondSubscriptionIsCancelledWithoutTheFirstRequest() {
        _ = upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).track(initialDemand: .none)
        upstream.subscribe()
        let second = RecordingSubscription()
        upstream.subscribe(second)
        #expect(second.calls == [.cancelled])
        #expect(upstream.subscription.calls == [.requested(.max(2))])
    }

    @Test func aCancelBeforeTheSubscriptionIsIgnored() throws {
        _ = upstream.buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest).track(initialDemand: .none)
        try inner().cancel()
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }

    @Test func throttleCancelledBeforeItsSubscriptionCancelsItOnArrival() throws {
        _ = upstream.throttle(for: .seconds(1), scheduler: DispatchQueue.main, latest: true).track(initialDemand: .none)
        try inner().cancel()
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.cancelled])
    }

    @Test func aValueOrCompletionBeforeTheSubscriptionIsIgnored() {
        let tracker = upstream.replaceEmpty(with: 7).track()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        #expect(tracker.events == [])
    }

    @Test func handleEventsPassesACompletionBeforeTheSubscription() {
        let tracker = upstream.handleEvents().track()
        upstream.send(completion: .finished)
        #expect(tracker.events == [.finished])
    }
}
