import Foundation
import Reactive
import Testing

@Suite struct NotificationCenterPublisherTests {
    static let saved = Notification.Name("NotificationCenterPublisherTests.saved")

    @Test func deliversPostedNotificationsUntilCancelled() {
        let center = NotificationCenter()
        var names: [String] = []
        let token = center.publisher(for: Self.saved).sink { names.append($0.name.rawValue) }
        center.post(name: Self.saved, object: nil)
        center.post(name: Notification.Name("other"), object: nil)
        token.cancel()
        center.post(name: Self.saved, object: nil)
        #expect(names == [Self.saved.rawValue])
    }

    @Test func notificationsBeyondDemandAreDropped() {
        let center = NotificationCenter()
        let tracker = TrackingSubscriber<String, Never>(initialDemand: .max(1))
        center.publisher(for: Self.saved).map { $0.name.rawValue }.subscribe(tracker)
        center.post(name: Self.saved, object: nil)
        center.post(name: Self.saved, object: nil)
        #expect(tracker.values.count == 1)
        tracker.cancel()
    }
}

@Suite struct NotificationCenterPublisherEqualityTests {
    @Test func publishersOfTheSameCenterNameAndObjectAreEqual() {
        let center = NotificationCenter()
        let object = NSObject()
        let name = Notification.Name("ping")
        #expect(center.publisher(for: name, object: object) == center.publisher(for: name, object: object))
        #expect(center.publisher(for: name) != center.publisher(for: name, object: object))
        #expect(center.publisher(for: name) != NotificationCenter().publisher(for: name))
        #expect(center.publisher(for: name) != center.publisher(for: Notification.Name("pong")))
    }
}
