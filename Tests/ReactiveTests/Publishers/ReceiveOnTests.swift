import Dispatch
import Reactive
import ReactiveTesting
import Testing

@Suite struct ReceiveOnTests {
    @Test func deliversInOrderOnTheSchedulerOnly() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.receive(on: scheduler).subscribe(tracker)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        scheduler.advance()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func keepsOrderOnAConcurrentQueue() {
        let done = Locked(false)
        let received = Locked<[Int]>([])
        let token = (0..<2_000).publisher
            .receive(on: DispatchQueue.global())
            .sink(
                receiveCompletion: { _ in done.mutate { $0 = true } },
                receiveValue: { value in received.mutate { $0.append(value) } })
        #expect(waitUntil { done.value })
        #expect(received.value == Array(0..<2_000))
        token.cancel()
    }

    @Test func nothingArrivesAfterCancel() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.receive(on: scheduler).subscribe(tracker)
        subject.send(1)
        tracker.cancel()
        scheduler.run()
        #expect(tracker.events == [.subscription])
    }

    @Test func aCompletionAlreadyOnItsWayArrivesEvenAfterACancelButAValueDoesNot() {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.receive(on: scheduler).track()
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .finished)
        tracker.cancel()
        scheduler.run()
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func theDemandADelayedValueReturnsReachesTheUpstreamEvenAfterItCompleted() {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        _ = upstream.receive(on: scheduler).track(initialDemand: .max(1), demandPerValue: .max(5))
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .finished)
        scheduler.run()
        #expect(upstream.subscription.calls == [.requested(.max(1)), .requested(.max(5))])
    }

    @Test func honoursDemandOfOneAtATime() {
        let scheduler = DispatchQueue.test
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        [1, 2, 3].publisher.receive(on: scheduler).subscribe(tracker)
        scheduler.run()
        #expect(tracker.values == [1])
        tracker.request(.max(1))
        scheduler.run()
        #expect(tracker.values == [1, 2])
    }

    @Test func theCompletionArrivesEvenWhenNothingElseHoldsTheChain() {
        let received = Locked<[String]>([])
        // A subscriber that does not keep its subscription: only the scheduled work holds the operator.
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { $0.request(.unlimited) },
            receiveValue: { value in
                received.mutate { $0.append("\(value)") }
                return .none
            },
            receiveCompletion: { _ in received.mutate { $0.append("finished") } })
        Just(1).receive(on: DispatchQueue.global()).subscribe(subscriber)
        Just(2).delay(for: .milliseconds(20), scheduler: DispatchQueue.global()).subscribe(subscriber)
        #expect(waitUntil(seconds: 10) { received.value.count == 4 })
        #expect(Set(received.value) == ["1", "2", "finished"])
    }
}
