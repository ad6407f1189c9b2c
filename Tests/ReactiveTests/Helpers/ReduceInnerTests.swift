import Reactive
import Testing

/// The reducing operators (`reduce`, `count`, `first`, `contains`, `min`, ...) as Combine's: they are the
/// downstream's subscription, ask the upstream for everything, and tolerate an upstream that misbehaves.
@Suite struct ReduceInnerTests {
    private let upstream = ManualPublisher<Int, Never>()

    private func inner() throws -> any Subscription {
        try #require(upstream.attached as? any Subscription)
    }

    @Test func aValueBeforeTheSubscriptionIsIgnored() {
        let tracker = upstream.reduce(0, +).track()
        #expect(upstream.send(1) == .none)
        upstream.subscribe()
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(2), .finished])
    }

    @Test func aCompletionBeforeTheSubscriptionIsIgnored() {
        let tracker = upstream.count().track()
        upstream.send(completion: .finished)
        #expect(tracker.events == [])
    }

    @Test func aSecondSubscriptionIsCancelledAndNotAsked() {
        _ = upstream.count().track()
        upstream.subscribe()
        let second = RecordingSubscription()
        upstream.subscribe(second)
        #expect(second.calls == [.cancelled])
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }

    @Test func aCancelBeforeTheSubscriptionIsIgnored() throws {
        _ = upstream.collect().track(initialDemand: .none)
        try inner().cancel()
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }

    @Test func aRequestBeforeTheSubscriptionIsRemembered() throws {
        let tracker = upstream.max().track(initialDemand: .none)
        try inner().request(.max(1))
        upstream.subscribe()
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(4), .finished])
    }

    @Test func aSecondCancelDoesNotReachTheUpstream() {
        let tracker = upstream.last().track()
        upstream.subscribe()
        tracker.cancel()
        tracker.cancel()
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func aRequestOfZeroTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            let tracker = upstream.count().track(initialDemand: .none)
            upstream.subscribe()
            tracker.request(.none)
        }
    }

    @Test func theMirrorShowsDownstreamResultInitialAndStatus() throws {
        _ = upstream.reduce(10, +).track()
        let mirror = try #require(upstream.attached as? any CustomReflectable).customMirror
        #expect(mirror.children.map(\.label) == ["downstream", "result", "initial", "status"])
    }

    @Test func subscriptionsCarryCombinesNames() {
        func name<P: Publisher>(_ make: (ManualPublisher<Int, Never>) -> P) -> String? where P.Output: Equatable {
            let upstream = ManualPublisher<Int, Never>()
            _ = make(upstream).track()
            return (upstream.attached as? any CustomStringConvertible)?.description
        }
        #expect(name { $0.first(where: { $0 > 0 }) } == "TryFirst")
        #expect(name { $0.contains(3) } == "Contains")
        #expect(name { $0.contains(where: { $0 > 3 }) } == "ContainsWhere")
    }

    @Test func containsOfAnElementIsItsOwnPublisherType() {
        let contains: Publishers.Contains<ManualPublisher<Int, Never>> = upstream.contains(3)
        #expect(contains.output == 3)
    }
}
