import Reactive
import Testing

/// `retry` towards the upstream and the downstream, as Combine's.
@Suite struct RetryTests {
    @Test func eachNewSubscriptionIsAskedForWhatIsStillOutstanding() {
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = upstream.retry(2).track(initialDemand: .max(5))
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(5)), .requested(.max(4))])
        #expect(tracker.events == [.subscription, .value(1)])
        #expect(tracker.subscription.map { String(describing: $0) } == "Retry")
    }

    @Test func theDemandAValueReturnsIsAskedOfTheUpstreamDirectly() {
        let upstream = ManualPublisher<Int, TestError>()
        _ = upstream.retry(1).track(initialDemand: .max(1), demandPerValue: .max(3))
        upstream.subscribe()
        #expect(upstream.send(1) == .none)
        #expect(upstream.subscription.calls == [.requested(.max(1)), .requested(.max(3))])
    }

    @Test func anUpstreamThatFailsWhileBeingSubscribedToIsRetriedInALoopNotByNesting() {
        var subscriptions = 0
        let failing = Fail<Int, TestError>(error: TestError()).handleEvents(receiveSubscription: { _ in
            subscriptions += 1
        })
        // Nested retries would need a stack frame per retry; 100,000 of them overflow the stack.
        let tracker = failing.retry(100_000).track()
        #expect(subscriptions == 100_001)
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }

    @Test func aNegativeCountRetriesWithoutEnd() {
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = upstream.retry(-1).track()
        upstream.subscribe()
        for _ in 0..<100 { upstream.send(completion: .failure(TestError())) }
        upstream.send(7)
        #expect(tracker.events == [.subscription, .value(7)])
    }

    @Test func aValueBeyondTheDemandIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            let tracker = upstream.retry(1).track(initialDemand: .none)
            upstream.subscribe()
            upstream.send(1)
            tracker.cancel()
        }
    }
}

/// `retry` lets go of its downstream once it has ended, as Combine's (the subscriber holds its subscription, so
/// keeping the downstream would keep both alive for good).
@Suite struct RetryReleaseTests {
    @Test func theDownstreamIsReleasedAfterTheLastFailure() {
        weak var released: TrackingSubscriber<Int, TestError>?
        do {
            let subject = PassthroughSubject<Int, TestError>()
            let tracker = TrackingSubscriber<Int, TestError>()
            released = tracker
            subject.retry(2).subscribe(tracker)
            // A failed subject fails each new subscriber at once: the retries run out here.
            subject.send(completion: .failure(TestError()))
            #expect(tracker.events == [.subscription, .failure("TestError(1)")])
        }
        #expect(released == nil)
    }

    @Test func theDownstreamIsReleasedOnCancel() {
        weak var released: TrackingSubscriber<Int, TestError>?
        let subject = PassthroughSubject<Int, TestError>()
        do {
            let tracker = TrackingSubscriber<Int, TestError>()
            released = tracker
            subject.retry(2).subscribe(tracker)
            subject.send(1)
            tracker.cancel()
            #expect(tracker.events == [.subscription, .value(1)])
        }
        #expect(released == nil)
    }
}
