import Foundation
import Reactive
import Testing

/// A timer publisher's subscription as Combine's: no description or mirror of its own (the ticks through it:
/// `TimerPublisherTests`).
@Suite struct TimerPublisherSubscriptionTests {
    @Test func theSubscriptionIsNotDescribed() throws {
        let publisher = Timer.publish(every: 10, on: .main, in: .default)
        let tracker = TrackingSubscriber<Date, Never>(initialDemand: .max(1))
        publisher.subscribe(tracker)
        let subscription = try #require(tracker.subscription)
        #expect(!(subscription is any CustomStringConvertible))
        #expect(!(subscription is any CustomReflectable))
        #expect(!(subscription is any CustomPlaygroundDisplayConvertible))
        #expect(!(subscription is any CustomDebugStringConvertible))
        tracker.cancel()
    }
}
