import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct ThrottleTests {
    @Test(arguments: [(true, [1, 4]), (false, [1, 2])])
    func firstGoesAtOnceThenOnePerInterval(latest: Bool, expected: [Int]) {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: latest).track()
        subject.send(1)
        scheduler.advance()
        #expect(tracker.values == [1])
        scheduler.advance(by: .milliseconds(100))
        subject.send(2)
        subject.send(3)
        subject.send(4)
        scheduler.advance(by: .milliseconds(900))
        #expect(tracker.values == expected)
        scheduler.advance(by: .seconds(5))
        #expect(tracker.values == expected)
    }

    @Test(arguments: [true, false])
    func theWindowRunsFromTheLastEmissionNotFromAValuesArrival(latest: Bool) {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let subject = PassthroughSubject<Int, Never>()
        var emitted: [String] = []
        let token = subject.throttle(for: .seconds(60), scheduler: scheduler, latest: latest).sink { value in
            emitted.append("\(value)@\(start.distance(to: scheduler.now).magnitude / 1_000_000_000)")
        }
        subject.send(0)
        scheduler.advance(by: .seconds(45))
        subject.send(45)
        scheduler.advance(by: .seconds(55))
        subject.send(100)
        scheduler.advance(by: .seconds(200))
        #expect(emitted == ["0@0", "45@60", "100@120"])
        token.cancel()
    }
}

/// Combine's throttle as OpenCombine's suite (run against Combine) records it: demand is taken when a value is
/// scheduled, and what waits for the scheduler is replaced or kept until it runs.
@Suite struct ThrottleCombineBookkeepingTests {
    @Test func valuesArrivingBeforeTheFirstGoesOutReplaceItWhenLatest() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true).track()
        subject.send(1)
        subject.send(2)
        subject.send(3)
        scheduler.advance()
        #expect(tracker.values == [3])
    }

    @Test func aValueThatFindsNoDemandIsDroppedNotHeld() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true).track(initialDemand: .none)
        subject.send(1)
        scheduler.advance()
        tracker.request(.max(1))
        scheduler.advance(by: .seconds(2))
        #expect(tracker.values == [])
        subject.send(2)
        scheduler.advance()
        #expect(tracker.values == [2])
    }

    @Test func theCompletionWaitsBehindAScheduledValue() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: false).track()
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription])
        scheduler.advance()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }

    @Test func aCancelledThrottleSendsNothingItHadScheduled() {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).track()
        upstream.subscribe()
        upstream.send(1)
        tracker.cancel()
        scheduler.advance()
        #expect(tracker.events == [.subscription])
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled])
    }
}
