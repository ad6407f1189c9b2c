import Reactive
import Testing

/// Combine's `map`, `filter`, `compactMap`, `mapError`, `setFailureType`, `scan` and `map(keyPath)` hand the upstream's own subscription
/// to the downstream: requests and cancels reach the upstream directly, and the downstream sees its name.
@Suite struct PassThroughSubscriptionTests {
    private func subscriptionSeen<P: Publisher>(_ make: (ManualPublisher<Int, Never>) -> P) -> String
    where P.Output: Equatable {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = make(upstream).track(initialDemand: .max(2))
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(2))])
        tracker.cancel()
        #expect(upstream.subscription.calls == [.requested(.max(2)), .cancelled])
        return tracker.subscription.map { String(describing: $0) } ?? "none"
    }

    @Test func mapHandsTheUpstreamSubscriptionDownstream() {
        #expect(subscriptionSeen { $0.map { $0 + 1 } } == "RecordingSubscription")
    }

    @Test func filterHandsTheUpstreamSubscriptionDownstream() {
        #expect(subscriptionSeen { $0.filter { $0 > 0 } } == "RecordingSubscription")
    }

    @Test func compactMapHandsTheUpstreamSubscriptionDownstream() {
        #expect(subscriptionSeen { $0.compactMap { $0 } } == "RecordingSubscription")
    }

    @Test func mapErrorHandsTheUpstreamSubscriptionDownstream() {
        #expect(subscriptionSeen { $0.mapError { _ in TestError() } } == "RecordingSubscription")
    }

    @Test func setFailureTypeHandsTheUpstreamSubscriptionDownstream() {
        #expect(subscriptionSeen { $0.setFailureType(to: TestError.self) } == "RecordingSubscription")
    }

    @Test func scanHandsTheUpstreamSubscriptionDownstream() {
        #expect(subscriptionSeen { $0.scan(0, +) } == "RecordingSubscription")
    }

    @Test func keyPathMapHandsTheUpstreamSubscriptionDownstream() {
        #expect(subscriptionSeen { $0.map(\.bitWidth) } == "RecordingSubscription")
    }

    @Test func ignoreOutputAsksItsUpstreamForEverythingOnceTheDownstreamHasTheSubscription() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.ignoreOutput().track(initialDemand: .max(2))
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(2)), .requested(.unlimited)])
        tracker.request(.max(3))
        #expect(upstream.subscription.calls == [.requested(.max(2)), .requested(.unlimited), .requested(.max(3))])
        #expect(tracker.subscription.map { String(describing: $0) } == "RecordingSubscription")
    }

    @Test func scanGoesOnAfterACompletionAsCombinesDoes() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.scan(0, +).track()
        upstream.subscribe()
        upstream.send(completion: .finished)
        upstream.send(2)
        #expect(tracker.events == [.subscription, .finished, .value(2)])
    }

    @Test func theInnerSubscriberIsNamedAsCombinesWithAnEmptyMirror() throws {
        let upstream = ManualPublisher<Int, Never>()
        _ = upstream.filter { _ in true }.track()
        let inner = try #require(upstream.attached as? any CustomStringConvertible & CustomReflectable)
        #expect(inner.description == "Filter")
        #expect(inner.customMirror.children.isEmpty)
    }
}
