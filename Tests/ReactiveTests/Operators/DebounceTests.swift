import Dispatch
import Reactive
import ReactiveTesting
import Testing

@Suite struct DebounceTests {
    @Test func emitsOnlyAfterAQuietPeriod() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<String, Never>()
        let tracker = TrackingSubscriber<String, Never>()
        subject.debounce(for: .milliseconds(300), scheduler: scheduler).subscribe(tracker)

        subject.send("s")
        scheduler.advance(by: .milliseconds(100))
        subject.send("sw")
        scheduler.advance(by: .milliseconds(299))
        #expect(tracker.values == [])
        scheduler.advance(by: .milliseconds(1))
        #expect(tracker.values == ["sw"])
        subject.send("swift")
        scheduler.advance(by: .seconds(1))
        #expect(tracker.events == [.subscription, .value("sw"), .value("swift")])
    }

    @Test func completionDropsThePendingValueAndArrivesOnTheScheduler() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        subject.send(1)
        subject.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        scheduler.advance()
        scheduler.advance(by: .seconds(1))
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func dropsAValueWhenThereIsNoDemand() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(2)
        scheduler.advance(by: .seconds(1))
        tracker.request(.max(1))
        subject.send(3)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [1, 3])
    }

    @Test func cancelStopsAScheduledEmission() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.debounce(for: .seconds(1), scheduler: scheduler).subscribe(tracker)
        subject.send(1)
        tracker.cancel()
        scheduler.run()
        #expect(tracker.events == [.subscription])
    }
}

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
}
