import Reactive
import Testing

/// `drop(untilOutputFrom:)` towards its downstream, its upstream and the other publisher, as Combine's.
@Suite struct DropUntilOutputTests {
    @Test func theDownstreamHasItsSubscriptionBeforeEitherPublisherIsSubscribedTo() {
        var order: [String] = []
        let upstream = PassthroughSubject<Int, Never>().handleEvents(receiveSubscription: { _ in order.append("up") })
        let other = PassthroughSubject<Int, Never>().handleEvents(receiveSubscription: { _ in order.append("other") })
        let token = upstream.drop(untilOutputFrom: other).sink(
            receiveCompletion: { _ in }, receiveValue: { _ in })
        #expect(order == ["other", "up"])
        let tracker = TrackingSubscriber<Int, Never>()
        PassthroughSubject<Int, Never>().drop(untilOutputFrom: ManualPublisher<Int, Never>()).subscribe(tracker)
        #expect(tracker.events == [.subscription])
        token.cancel()
    }

    @Test func requestsBeforeTheUpstreamsSubscriptionAreAskedForTogether() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.drop(untilOutputFrom: ManualPublisher<Int, Never>()).track(initialDemand: .max(10))
        tracker.request(.max(4))
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(14))])
    }

    @Test func valuesPassOnlyAfterTheOthersFirstValueAndTheOtherIsThenLetGo() {
        let upstream = ManualPublisher<Int, Never>()
        let other = ManualPublisher<Int, Never>()
        let tracker = upstream.drop(untilOutputFrom: other).track()
        other.subscribe()
        upstream.subscribe()
        #expect(upstream.send(1) == .none)
        other.send(0)
        upstream.send(2)
        other.send(completion: .finished)
        upstream.send(3)
        tracker.cancel()
        #expect(tracker.events == [.subscription, .value(2), .value(3)])
        #expect(other.subscription.calls == [.requested(.max(1))])
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func theOthersCompletionBeforeItsValueCancelsTheUpstreamAndIsPassedOn() {
        let upstream = ManualPublisher<Int, TestError>()
        let other = ManualPublisher<Int, TestError>()
        let tracker = upstream.drop(untilOutputFrom: other).track()
        other.subscribe()
        upstream.subscribe()
        other.send(completion: .failure(TestError(code: 3)))
        #expect(tracker.events == [.subscription, .failure("TestError(3)")])
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func aValueBeyondTheDemandIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            let tracker = upstream.drop(untilOutputFrom: ManualPublisher<Int, Never>()).track(initialDemand: .none)
            upstream.subscribe()
            upstream.send(1)
            tracker.cancel()
        }
    }
}
