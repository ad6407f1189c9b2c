import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct SubscribeOnTests {
    @Test func subscribesAndRequestsOnTheScheduler() {
        let scheduler = DispatchQueue.test
        let tracker = [1, 2].publisher.subscribe(on: scheduler).track()
        #expect(tracker.events == [])
        scheduler.advance()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func afterACancelNothingReachesTheDownstreamWhileTheUpstreamsCancelWaitsForTheScheduler() {
        let scheduler = DispatchQueue.test
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.subscribe(on: scheduler).track(initialDemand: .none)
        scheduler.advance()
        upstream.subscribe()
        tracker.cancel()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        tracker.request(.max(3))
        #expect(tracker.events == [.subscription])
        #expect(upstream.subscription.calls == [])
        scheduler.advance()
        #expect(upstream.subscription.calls == [.cancelled])
    }
}

/// `subscribe(on:)` where Combine traps (its lock is held while the upstream is asked).
@Suite struct SubscribeOnMisuseTests {
    @Test func aRequestFromInsideTheUpstreamsRequestTraps() async {
        await #expect(processExitsWith: .failure) {
            var tracker: TrackingSubscriber<Int, Never>?
            var recursion = 5
            let upstream = ManualPublisher<Int, Never>()
            let subscriber = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
            tracker = subscriber
            upstream.handleEvents(receiveRequest: { _ in
                guard recursion > 0 else { return }
                recursion -= 1
                tracker?.request(.unlimited)
            })
            .subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
            upstream.subscribe()
        }
    }

    @Test func aCancelFromInsideTheUpstreamsCancelDoesNotTrap() {
        var tracker: TrackingSubscriber<Int, Never>?
        var cancels = 0
        let upstream = PassthroughSubject<Int, Never>()
        let subscriber = TrackingSubscriber<Int, Never>()
        tracker = subscriber
        upstream.handleEvents(receiveCancel: {
            cancels += 1
            tracker?.cancel()
        }).subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
        subscriber.cancel()
        #expect(cancels == 1)
    }
}
