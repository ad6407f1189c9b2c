import Reactive
import Testing

@Suite struct DropTests {
    @Test func dropFirst() {
        #expect([1, 2, 3].publisher.dropFirst().track().values == [2, 3])
        #expect([1, 2, 3].publisher.dropFirst(5).track().events == [.subscription, .finished])
    }

    @Test func dropWhile() {
        #expect([1, 2, 5, 1].publisher.drop { $0 < 3 }.track().values == [5, 1])
    }

    @Test func tryDropWhileFails() {
        let tracker = [1, 2].publisher.tryDrop { _ in throw TestError() }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }

    @Test(arguments: [false, true])
    func aValueBeforeTheSubscriptionIsDroppedWithoutAskingThePredicate(throwing: Bool) {
        var asked = 0
        let upstream = ManualPublisher<Int, Never>()
        let tracker =
            throwing
            ? upstream.tryDrop { _ in
                asked += 1
                return false
            }.mapError { _ in TestError() }.track()
            : upstream.drop { _ in
                asked += 1
                return false
            }.setFailureType(to: TestError.self).track()
        #expect(upstream.send(1) == .none)
        upstream.subscribe()
        upstream.send(2)
        #expect(asked == 1)
        #expect(tracker.values == [2])
    }
}

/// `dropFirst` as Combine's: its own subscription, one request for the dropped elements and the downstream's
/// demand, nothing more asked per dropped element.
@Suite struct DropFirstDemandTests {
    private let upstream = ManualPublisher<Int, Never>()

    @Test func asksForTheDroppedElementsAndTheDownstreamsDemandInOneRequest() {
        let tracker = upstream.dropFirst(2).track(initialDemand: .max(42), demandPerValue: .max(3))
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(44))])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        #expect(upstream.send(3) == .max(3))
        #expect(tracker.events == [.subscription, .value(3)])
        #expect(tracker.subscription.map { "\($0)" } == "Drop")
    }

    @Test func asksForTheDroppedElementsEvenWithoutDemand() {
        _ = upstream.dropFirst().track(initialDemand: .none)
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(1))])
    }

    @Test func everyCompletionGoesDownstreamAndLetsGoOfTheSubscriptionUncancelled() {
        let tracker = upstream.dropFirst(0).track(initialDemand: .none)
        upstream.subscribe()
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        tracker.cancel()
        tracker.request(.max(2))
        #expect(tracker.events == [.subscription, .finished, .finished])
        #expect(upstream.subscription.calls == [])
        let later = RecordingSubscription()
        upstream.subscribe(later)
        #expect(later.calls == [.requested(.max(2))])
    }

    @Test func theDownstreamHasItsSubscriptionBeforeTheUpstreamIsSubscribedTo() {
        let tracker = upstream.dropFirst(4).track(initialDemand: .max(10))
        #expect(tracker.events == [.subscription])
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(14))])
    }

    @Test func aNegativeCountTrapsWhenSubscribedToNotWhenMade() async {
        _ = Empty<Int, Never>().dropFirst(-1)
        await #expect(processExitsWith: .failure) {
            _ = Empty<Int, Never>().dropFirst(-1).sink { _ in }
        }
    }
}
