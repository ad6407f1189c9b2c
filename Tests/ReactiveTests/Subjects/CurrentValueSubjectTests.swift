import Dispatch
import Reactive
import Synchronization
import Testing

@Suite struct CurrentValueSubjectTests {
    @Test func newSubscriberGetsTheCurrentValueThenUpdates() {
        let subject = CurrentValueSubject<[String], Never>(["Buy Milk"])
        let tracker = TrackingSubscriber<[String], Never>()
        subject.subscribe(tracker)
        subject.send(subject.value + ["Walk"])
        #expect(tracker.events == [.subscription, .value(["Buy Milk"]), .value(["Buy Milk", "Walk"])])
        #expect(subject.value == ["Buy Milk", "Walk"])
    }

    @Test func anUpstreamIsAskedForEverythingAtOnceEvenWithoutSubscribers() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let upstream = RecordingSubscription()
        subject.send(subscription: upstream)
        #expect(upstream.calls == [.requested(.unlimited)])
    }

    @Test func settingValueSends() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let tracker = TrackingSubscriber<Int, Never>()
        subject.subscribe(tracker)
        subject.value = 2
        #expect(tracker.values == [1, 2])
    }

    @Test func currentValueWaitsForDemand() {
        let subject = CurrentValueSubject<Int, Never>(1)
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(tracker)
        subject.send(2)
        #expect(tracker.values == [])
        tracker.request(.max(1))
        #expect(tracker.values == [2])
        subject.send(3)
        #expect(tracker.values == [2])
        // As in Combine: 3 was dropped for lack of demand, so the next request gets the current value at once.
        tracker.request(.max(1))
        #expect(tracker.values == [2, 3])
        subject.send(4)
        #expect(tracker.values == [2, 3])
    }

    @Test func completionIsTerminalAndReachesLateSubscribers() {
        let subject = CurrentValueSubject<Int, TestError>(0)
        let early = TrackingSubscriber<Int, TestError>()
        subject.subscribe(early)
        subject.send(completion: .failure(TestError(code: 7)))
        subject.send(5)
        let late = TrackingSubscriber<Int, TestError>()
        subject.subscribe(late)
        #expect(early.events == [.subscription, .value(0), .failure("TestError(7)")])
        #expect(late.events == [.subscription, .failure("TestError(7)")])
        #expect(subject.value == 0)
    }

    @Test func reentrantSendFromASinkDeliversInOrder() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var seen: [Int] = []
        let token = subject.sink { value in
            seen.append(value)
            if value < 3 { subject.send(value + 1) }
        }
        token.cancel()
        #expect(seen == [0, 1, 2, 3])
        #expect(subject.value == 3)
    }

    @Test func fanOutToManySinksFromManyThreads() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let total = Atomic<Int>(0)
        let tokens = (0..<50).map { _ in subject.sink { _ in total.wrappingAdd(1, ordering: .relaxed) } }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for value in 0..<250 { subject.send(value) }
        }
        tokens.forEach { $0.cancel() }
        let delivered = total.load(ordering: .relaxed)
        #expect(delivered == 50 * (1 + 1_000))
    }

    @Test func aNestedSendIsStoredAndDeliveredBeforeLaterSubscribersSeeTheOuterValue() {
        let subject = CurrentValueSubject<Int, Never>(0)
        // As in Combine: the second subscriber sees 2 before 1, while the subject already holds 2.
        #expect(logOfANestedSend(on: subject) == ["a0", "b0", "a1", "a2", "b2", "b1"])
        #expect(subject.value == 2)
    }

    @Test func valueCanStillBeSetAfterCompletionButIsNotSent() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let tracker = subject.track()
        subject.send(completion: .finished)
        subject.value = 5
        subject.send(6)
        #expect(subject.value == 5)
        #expect(tracker.events == [.subscription, .value(0), .finished])
    }

    @Test func aValueDroppedForLackOfDemandIsReplacedByTheLatestOnTheNextRequest() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let tracker = subject.track(initialDemand: .max(1))
        subject.send(1)
        subject.send(2)
        #expect(tracker.values == [0])
        tracker.request(.max(1))
        #expect(tracker.values == [0, 2])
        subject.send(3)
        #expect(tracker.values == [0, 2])
    }
}
