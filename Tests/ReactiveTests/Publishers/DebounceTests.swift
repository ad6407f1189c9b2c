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

    @Test func aNewElementCancelsThePendingTimerAndAFiredTimerIsCancelledToo() {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.debounce(for: .milliseconds(300), scheduler: scheduler).track()
        upstream.subscribe()
        for value in 1...2 {
            upstream.send(value)
            scheduler.advance(by: .milliseconds(100))
        }
        #expect(scheduler.pendingCount == 1)
        scheduler.advance(by: .milliseconds(200))
        #expect(tracker.values == [2])
        #expect(scheduler.pendingCount == 0)
    }
}
