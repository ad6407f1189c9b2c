import Dispatch
import Reactive
import ReactiveTesting
import Testing

/// `collect(.byTime)` / `collect(.byTimeOrCount)`, from Combine's documentation: at the end of each interval
/// the publisher sends an array of what it collected; with a count, also as soon as that many arrived; when
/// the upstream finishes, what was collected goes out before the finish; a failure is forwarded instead of
/// the collected output.
@Suite struct CollectByTimeTests {
    @Test func byTimeSendsWhatArrivedInEachIntervalAndNothingForAnEmptyOne() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.collect(.byTime(scheduler, .seconds(1))).track()
        subject.send(1)
        subject.send(2)
        scheduler.advance(by: .milliseconds(999))
        #expect(tracker.values.isEmpty)
        scheduler.advance(by: .milliseconds(1))
        #expect(tracker.values == [[1, 2]])
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [[1, 2]])
        subject.send(3)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [[1, 2], [3]])
    }

    /// A full group goes out through the scheduler at once (at its current time), not on the sender's stack.
    @Test func byTimeOrCountHandsAFullGroupToTheSchedulerAtOnce() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.collect(.byTimeOrCount(scheduler, .seconds(1), 2)).track()
        scheduler.advance(by: .milliseconds(500))
        subject.send(1)
        subject.send(2)
        #expect(tracker.values.isEmpty)
        scheduler.advance()
        #expect(tracker.values == [[1, 2]])
        subject.send(3)
        scheduler.advance(by: .milliseconds(499))
        #expect(tracker.values == [[1, 2]])
        scheduler.advance(by: .milliseconds(1))
        #expect(tracker.values == [[1, 2], [3]])
    }

    /// A group cut by count does not restart the interval: the intervals run from the subscription, as Apple's
    /// Combine was observed to do (the cases and results reported from a run on Apple's Combine in
    /// docs/combine-compatibility.md). Restarting would give [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]] and
    /// [[3, 4], [5, 6], [7, 8], [9, 10], [11, 12]].
    @Test(arguments: [
        (0...9, [[0, 1], [2, 3], [4], [5, 6], [7, 8], [9]]),
        (3...12, [[3, 4], [5, 6], [7, 8], [9], [10, 11], [12]]),
    ])
    func aGroupCutByCountKeepsTheIntervalsOfTheSubscription(values: ClosedRange<Int>, groups: [[Int]]) {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let start = scheduler.now
        let tracker = subject.collect(.byTimeOrCount(scheduler, .seconds(5), 2)).track()
        for value in values {
            scheduler.advance(to: start.advanced(by: .seconds(value)))
            subject.send(value)
        }
        scheduler.advance(by: .seconds(5))
        #expect(tracker.values == groups)
    }

    @Test func aFinishSendsTheCollectedRestThenFinishes() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.collect(.byTime(scheduler, .seconds(10))).track()
        subject.send(1)
        subject.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        scheduler.advance()
        #expect(tracker.events == [.subscription, .value([1]), .finished])
        scheduler.advance(by: .seconds(20))
        #expect(tracker.events == [.subscription, .value([1]), .finished])
    }

    @Test func aFailureIsForwardedInsteadOfTheCollectedOutput() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.collect(.byTime(scheduler, .seconds(1))).track()
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription])
        scheduler.advance(by: .seconds(2))
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }

    @Test func groupsWaitForDemand() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.collect(.byTimeOrCount(scheduler, .seconds(1), 2)).track(initialDemand: .none)
        for value in 1...5 { subject.send(value) }
        #expect(tracker.values.isEmpty)
        tracker.request(.max(2))
        #expect(tracker.values == [[1, 2], [3, 4]])
        scheduler.advance(by: .seconds(1))
        tracker.request(.max(1))
        #expect(tracker.values == [[1, 2], [3, 4], [5]])
    }

    @Test func cancelStopsTheTimer() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.collect(.byTime(scheduler, .seconds(1))).track()
        subject.send(1)
        tracker.cancel()
        scheduler.advance(by: .seconds(3))
        #expect(tracker.values.isEmpty)
        #expect(scheduler.pendingCount == 0)
    }
}
