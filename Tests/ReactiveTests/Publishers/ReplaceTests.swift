import Reactive
import Testing

@Suite struct ReplaceTests {
    @Test func replaceNil() {
        #expect([1, nil, 3].publisher.replaceNil(with: 0).track().values == [1, 0, 3])
    }

    @Test func replaceEmptyOnlyWhenNothingCame() {
        #expect(Empty<Int, Never>().replaceEmpty(with: 7).track().events == [.subscription, .value(7), .finished])
        #expect([1].publisher.replaceEmpty(with: 7).track().values == [1])
    }

    @Test func replaceErrorSendsTheElementThenFinishes() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.replaceError(with: -1).track()
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(1), .value(-1), .finished])
    }

    @Test func replaceErrorWaitsForDemand() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.replaceError(with: -1).track(initialDemand: .max(1))
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(1)])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(1), .value(-1), .finished])
    }
}

/// `replaceError` as Combine's: its own subscription, named "ReplaceError", that counts the downstream's demand.
@Suite struct ReplaceErrorSubscriptionTests {
    private let upstream = ManualPublisher<Int, TestError>()

    @Test func aFailureWithoutDemandIsReplacedOnTheNextRequest() {
        let tracker = upstream.replaceError(with: 42).track(initialDemand: .max(1))
        upstream.subscribe()
        upstream.send(9)
        upstream.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(9)])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(9), .value(42), .finished])
        #expect(tracker.subscription.map { "\($0)" } == "ReplaceError")
    }

    @Test func aValueOrCompletionBeforeTheSubscriptionIsIgnored() {
        let tracker = upstream.replaceError(with: 0).track()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        #expect(tracker.events == [])
    }

    @Test func aSecondCancelDoesNotReachTheUpstream() {
        let tracker = upstream.replaceError(with: 0).track(initialDemand: .max(3))
        upstream.subscribe()
        tracker.cancel()
        tracker.cancel()
        #expect(upstream.subscription.calls == [.requested(.max(3)), .cancelled])
    }

    @Test func aValueBeyondTheDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            _ = upstream.replaceError(with: 0).track(initialDemand: .none)
            upstream.subscribe()
            upstream.send(1)
        }
    }
}

/// `replaceEmpty` as Combine's: it asks the upstream for everything once the downstream has its subscription,
/// and passes the downstream's own requests on too.
@Suite struct ReplaceEmptyDemandTests {
    @Test func asksForEverythingAfterTheDownstreamsFirstRequest() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.replaceEmpty(with: 0).track(initialDemand: .max(42))
        upstream.subscribe()
        tracker.request(.max(5))
        #expect(upstream.subscription.calls == [.requested(.max(42)), .requested(.unlimited), .requested(.max(5))])
    }

    @Test func aRequestOfZeroTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            let tracker = upstream.replaceEmpty(with: 0).track(initialDemand: .none)
            upstream.subscribe()
            tracker.request(.none)
        }
    }
}
