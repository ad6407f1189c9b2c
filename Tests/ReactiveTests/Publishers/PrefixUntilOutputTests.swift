import Reactive
import Testing

@Suite struct PrefixUntilOutputTests {
    @Test func republishesUntilTheOtherEmitsThenFinishes() {
        let values = PassthroughSubject<Int, Never>()
        let stop = PassthroughSubject<Void, Never>()
        let tracker = values.prefix(untilOutputFrom: stop).track()
        values.send(1)
        values.send(2)
        stop.send()
        values.send(3)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func dropIgnoresElementsUntilTheOtherEmits() {
        let values = PassthroughSubject<Int, Never>()
        let ready = PassthroughSubject<Void, Never>()
        let tracker = values.drop(untilOutputFrom: ready).track()
        values.send(1)
        ready.send()
        values.send(2)
        values.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(2), .finished])
    }

    @Test func dropFailsWhenTheOtherFails() {
        let values = PassthroughSubject<Int, TestError>()
        let ready = PassthroughSubject<Void, TestError>()
        let tracker = values.drop(untilOutputFrom: ready).track()
        ready.send(completion: .failure(TestError(code: 5)))
        values.send(1)
        #expect(tracker.events == [.subscription, .failure("TestError(5)")])
    }
}

/// The until-output operators as Combine's towards the upstream and the other publisher.
@Suite struct UntilOutputDemandTests {
    @Test func dropUntilOutputAsksForNothingMoreForADroppedElement() {
        let upstream = ManualPublisher<Int, Never>()
        let other = PassthroughSubject<Void, Never>()
        _ = upstream.drop(untilOutputFrom: other).track()
        upstream.subscribe()
        #expect(upstream.send(1) == .none)
    }

    @Test func prefixUntilOutputLetsTheOtherGoWithoutCancellingIt() {
        let other = ManualPublisher<Int, Never>()
        let tracker = PassthroughSubject<Int, Never>().prefix(untilOutputFrom: other).track()
        other.subscribe()
        other.send(1)
        #expect(other.subscription.calls == [.requested(.max(1))])
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func theOthersValueFinishesTheDownstreamEvenBeforeTheUpstreamsSubscription() {
        let upstream = ManualPublisher<Int, Never>()
        let other = ManualPublisher<Int, Never>()
        let tracker = upstream.prefix(untilOutputFrom: other).track()
        other.subscribe()
        other.send(1)
        #expect(tracker.events == [.finished])
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.cancelled])
        #expect(tracker.events == [.finished])
    }

    @Test func theOthersCompletionOnlyEndsTheWatching() {
        let upstream = ManualPublisher<Int, Never>()
        let other = ManualPublisher<Int, Never>()
        let tracker = upstream.prefix(untilOutputFrom: other).track()
        upstream.subscribe()
        other.subscribe()
        other.send(completion: .finished)
        other.send(1)
        upstream.send(2)
        #expect(tracker.events == [.subscription, .value(2)])
        #expect(other.subscription.calls == [.requested(.max(1))])
    }

    @Test func aCancelReachesTheUpstreamFirstAndAnUpstreamCompletionCancelsTheOther() {
        let upstream = ManualPublisher<Int, Never>()
        let other = ManualPublisher<Int, Never>()
        let tracker = upstream.prefix(untilOutputFrom: other).track(initialDemand: .none)
        upstream.subscribe()
        other.subscribe()
        tracker.cancel()
        #expect(upstream.subscription.calls == [.cancelled])
        #expect(other.subscription.calls == [.requested(.max(1)), .cancelled])

        let second = ManualPublisher<Int, Never>()
        let secondOther = ManualPublisher<Int, Never>()
        let finished = second.prefix(untilOutputFrom: secondOther).track()
        second.subscribe()
        secondOther.subscribe()
        second.send(completion: .finished)
        #expect(secondOther.subscription.calls == [.requested(.max(1)), .cancelled])
        #expect(finished.events == [.subscription, .finished])
    }
}
