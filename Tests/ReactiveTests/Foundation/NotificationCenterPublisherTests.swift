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
