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
