import Reactive
import Testing

/// `buffer(size:prefetch:whenFull:)`, from Combine's documentation and observable behaviour: `keepFull` asks
/// the upstream for `size` at once and one more per element passed on, `byRequest` asks for everything; a
/// full buffer drops the newest or the oldest element, or fails with the custom error.
@Suite struct BufferTests {
    @Test func keepFullPrefetchesSizeAndRefillsAsElementsGoOut() {
        var requests: [String] = []
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.handleEvents(receiveRequest: { requests.append("\($0)") })
            .buffer(size: 3, prefetch: .keepFull, whenFull: .dropNewest)
            .track(initialDemand: .none)
        #expect(requests == ["max(3)"])
        for value in 1...3 { subject.send(value) }
        tracker.request(.max(2))
        #expect(tracker.values == [1, 2])
        #expect(requests == ["max(3)", "max(2)"])
    }

    @Test func byRequestAsksTheUpstreamForEverything() {
        var requests: [String] = []
        let tracker = (1...4).publisher.handleEvents(receiveRequest: { requests.append("\($0)") })
            .buffer(size: 10, prefetch: .byRequest, whenFull: .dropNewest)
            .track(initialDemand: .max(1))
        #expect(requests == ["unlimited"])
        #expect(tracker.values == [1])
        tracker.request(.unlimited)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .value(3), .value(4), .finished])
    }

    @Test(arguments: [("dropNewest", [1, 2]), ("dropOldest", [3, 4])])
    func aFullBufferDrops(strategy: String, expected: [Int]) {
        let subject = PassthroughSubject<Int, Never>()
        let whenFull: Publishers.BufferingStrategy<Never> = strategy == "dropNewest" ? .dropNewest : .dropOldest
        let tracker = subject.buffer(size: 2, prefetch: .byRequest, whenFull: whenFull).track(initialDemand: .none)
        for value in 1...4 { subject.send(value) }
        tracker.request(.unlimited)
        #expect(tracker.values == expected)
    }

    @Test func aFullBufferCancelsTheUpstreamAndFailsWithTheCustomErrorAfterTheHeldElements() {
        var cancelled = false
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.handleEvents(receiveCancel: { cancelled = true })
            .buffer(size: 1, prefetch: .byRequest, whenFull: .customError { TestError(code: 7) })
            .track(initialDemand: .none)
        subject.send(1)
        subject.send(2)
        #expect(tracker.events == [.subscription])
        #expect(cancelled)
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(7)")])
    }

    @Test func theCustomErrorFollowsTheElementsTheNextRequestTakes() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.buffer(size: 5, prefetch: .byRequest, whenFull: .customError { TestError(code: 3) })
            .track(initialDemand: .none)
        for value in 0..<10 { subject.send(value) }
        #expect(tracker.events == [.subscription])
        tracker.request(.max(3))
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(0), .value(1), .value(2), .failure("TestError(3)")])
    }

    @Test func aFailureWithoutDemandGoesOutAtOnceAndAFinishWaitsForTheElements() {
        let failing = PassthroughSubject<Int, TestError>()
        let failed = failing.buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest).track(initialDemand: .none)
        failing.send(1)
        failing.send(completion: .failure(TestError()))
        #expect(failed.events == [.subscription, .failure("TestError(1)")])

        let finishing = PassthroughSubject<Int, Never>()
        let finished = finishing.buffer(size: 5, prefetch: .byRequest, whenFull: .dropNewest)
            .track(initialDemand: .none)
        finishing.send(1)
        finishing.send(completion: .finished)
        #expect(finished.events == [.subscription])
        finished.request(.max(1))
        #expect(finished.events == [.subscription, .value(1)])
        finished.request(.max(1))
        #expect(finished.events == [.subscription, .value(1), .finished])
    }

    @Test func elementsKeepTheirOrderAcrossNestedRequests() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        subject.buffer(size: 10, prefetch: .keepFull, whenFull: .dropNewest).subscribe(tracker)
        for value in 1...5 { subject.send(value) }
        #expect(tracker.values == [1, 2, 3, 4, 5])
    }
}

@Suite struct BufferMisuseTests {
    @Test func aRequestOfZeroAddsNothing() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).track(initialDemand: .none)
        upstream.subscribe()
        tracker.request(.none)
        upstream.send(1)
        #expect(tracker.events == [.subscription])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(1)])
    }

    @Test func anElementSentFromTheCustomErrorClosureTraps() async {
        // NB: Combine's buffer runs the closure under its lock and deadlocks here.
        await #expect(processExitsWith: .failure) {
            let subject = PassthroughSubject<Int, TestError>()
            let overflow: () -> TestError = {
                subject.send(99)
                return TestError(code: 7)
            }
            let tracker = subject.buffer(size: 1, prefetch: .byRequest, whenFull: .customError(overflow))
                .track(initialDemand: .none)
            subject.send(1)
            subject.send(2)
            tracker.cancel()
        }
    }

    @Test func theUpstreamIsAskedBeforeTheDownstreamGetsItsSubscription() {
        let upstream = ManualPublisher<Int, Never>()
        var seenAtRequest: [String] = []
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        upstream.handleEvents(receiveRequest: { _ in seenAtRequest.append(tracker.events.description) })
            .buffer(size: 42, prefetch: .keepFull, whenFull: .dropNewest).subscribe(tracker)
        upstream.subscribe()
        #expect(seenAtRequest == ["[]"])
        #expect(tracker.events == [.subscription])
    }
}

/// `buffer` where Combine's behaviour is its own (OpenCombine's suite, run against Combine, records it).
@Suite struct BufferCompletionTests {
    @Test func aFailureSentFromInsideADeliveryGoesOutThereAndTheElementsTakenFollow() {
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .none) { _ in
            upstream.send(completion: .failure(TestError()))
        }
        upstream.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(tracker)
        upstream.subscribe()
        for value in 1...5 { upstream.send(value) }
        tracker.request(.max(3))
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)"), .value(2), .value(3)])
    }

    @Test func elementsThatComeAfterAFinishAreStillPassedOn() {
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = upstream.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).track(initialDemand: .none)
        upstream.subscribe()
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        upstream.send(1)
        upstream.send(2)
        #expect(tracker.events == [.subscription])
        tracker.request(.max(2))
        #expect(tracker.events == [.subscription, .value(1), .value(2)])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func keepFullStillAsksTheCancelledUpstreamToRefillAfterItsCustomError() {
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = upstream.buffer(size: 5, prefetch: .keepFull, whenFull: .customError { TestError(code: 2) })
            .track(initialDemand: .none)
        upstream.subscribe()
        for value in 0..<6 { upstream.send(value) }
        #expect(upstream.subscription.calls == [.requested(.max(5)), .cancelled])
        tracker.request(.max(3))
        #expect(upstream.subscription.calls == [.requested(.max(5)), .cancelled, .requested(.max(3))])
        #expect(tracker.events == [.subscription, .value(0), .value(1), .value(2), .failure("TestError(2)")])
    }
}
