import Reactive
import Testing

/// The element operators that hand their own subscription downstream (`tryMap`, `tryFilter`, `drop(while:)`,
/// `prefix(while:)`, `removeDuplicates`, ...) as Combine's: strict ones trap on a misbehaving upstream,
/// tolerant ones let it pass.
@Suite struct StepInnerTests {
    private let upstream = ManualPublisher<Int, Never>()

    private func inner() throws -> any Subscription {
        try #require(upstream.attached as? any Subscription)
    }

    @Test func theDownstreamGetsTheOperatorAsItsSubscription() throws {
        let tracker = upstream.tryMap { $0 }.track()
        upstream.subscribe()
        #expect(tracker.subscription.map { "\($0)" } == "TryMap")
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }

    @Test func aSecondCancelDoesNotReachTheUpstream() {
        let tracker = upstream.tryFilter { _ in true }.track(initialDemand: .none)
        upstream.subscribe()
        tracker.cancel()
        tracker.cancel()
        #expect(upstream.subscription.calls == [.cancelled])
    }

    @Test func aSecondSubscriptionIsCancelled() {
        _ = upstream.removeDuplicates().track(initialDemand: .none)
        upstream.subscribe()
        let second = RecordingSubscription()
        upstream.subscribe(second)
        #expect(second.calls == [.cancelled])
    }

    @Test func aStrictOperatorCancelledBeforeItsSubscriptionCancelsItOnArrival() throws {
        _ = upstream.prefix(while: { _ in true }).track(initialDemand: .none)
        try inner().cancel()
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.cancelled])
    }

    @Test func aTolerantOperatorIgnoresACancelBeforeItsSubscription() throws {
        _ = upstream.drop(while: { _ in true }).track(initialDemand: .none)
        try inner().cancel()
        upstream.subscribe()
        #expect(upstream.subscription.calls == [])
    }

    @Test func aTolerantOperatorTakesAValueBeforeItsSubscription() {
        let tracker = upstream.tryMap { $0 * 2 }.track(demandPerValue: .max(42))
        #expect(upstream.send(21) == .max(42))
        #expect(tracker.values == [42])
    }

    @Test func aStrictOperatorTrapsOnAValueBeforeItsSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            _ = upstream.tryFilter { _ in true }.track()
            upstream.send(1)
        }
    }

    @Test func aStrictOperatorTrapsOnARequestBeforeItsSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            _ = upstream.tryCompactMap { $0 }.track(initialDemand: .none)
            (upstream.attached as? any Subscription)?.request(.max(1))
        }
    }

    @Test func theMirrorShowsTheDownstream() throws {
        _ = upstream.tryPrefix(while: { _ in true }).track()
        let mirror = try #require(upstream.attached as? any CustomReflectable).customMirror
        #expect(mirror.children.map(\.label) == ["downstream"])
    }
}
