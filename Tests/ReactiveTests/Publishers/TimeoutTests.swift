import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct TimeoutTests {
    @Test func finishesAfterASilentInterval() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.timeout(.seconds(1), scheduler: scheduler).track()
        scheduler.advance(by: .milliseconds(900))
        subject.send(1)
        scheduler.advance(by: .milliseconds(900))
        #expect(tracker.events == [.subscription, .value(1)])
        scheduler.advance(by: .milliseconds(100))
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }

    @Test func customErrorFails() {
        let scheduler = DispatchQueue.test
        let tracker = PassthroughSubject<Int, TestError>()
            .timeout(.seconds(1), scheduler: scheduler, customError: { TestError(code: 408) })
            .track()
        scheduler.advance(by: .seconds(1))
        #expect(tracker.events == [.subscription, .failure("TestError(408)")])
    }

    @Test func valuesAndTheCompletionArriveThroughTheScheduler() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.timeout(.seconds(5), scheduler: scheduler).track()
        subject.send(1)
        subject.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        scheduler.advance()
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }

    @Test func theFirstRequestStartsTheWaitOver() {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.timeout(.seconds(1), scheduler: scheduler).track(initialDemand: .none)
        upstream.subscribe()
        scheduler.advance(by: .milliseconds(600))
        tracker.request(.max(1))
        scheduler.advance(by: .milliseconds(600))
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription])
        scheduler.advance(by: .milliseconds(400))
        #expect(tracker.events == [.subscription, .finished])
        #expect(upstream.subscription.calls == [.requested(.max(1)), .requested(.max(1)), .cancelled])
    }

    @Test func aCancelReachesTheUpstreamEvenAfterItsCompletionAndDropsWhatIsOnItsWay() {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.timeout(.seconds(1), scheduler: scheduler).track()
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .finished)
        tracker.cancel()
        scheduler.advance(by: .seconds(5))
        #expect(tracker.events == [.subscription])
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func aCancelBeforeTheSubscriptionDoesNothing() throws {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.timeout(.seconds(1), scheduler: scheduler).track()
        let inner = try #require(upstream.attached as? any Subscription)
        inner.cancel()
        upstream.subscribe()
        #expect(tracker.events == [.subscription])
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }
}

/// `timeout` where Combine traps: a scheduler that runs the timer inside `schedule` (its lock is held then).
@Suite struct TimeoutMisuseTests {
    @Test func anImmediateSchedulerTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            let tracker = upstream.timeout(.nanoseconds(10), scheduler: ImmediateScheduler.shared).track()
            upstream.subscribe()
            tracker.cancel()
        }
    }
}
