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
}
