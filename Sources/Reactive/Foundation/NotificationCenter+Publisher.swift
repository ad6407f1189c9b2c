public import Foundation
import Synchronization

extension NotificationCenter {
    /// A publisher that emits elements when broadcasting notifications.
    ///
    /// ```swift
    /// NotificationCenter.default.publisher(for: .NSSystemClockDidChange).sink { _ in refresh() }
    /// ```
    public struct Publisher: Reactive.Publisher {
        /// The notifications posted.
        public typealias Output = Notification
        /// This publisher never fails.
        public typealias Failure = Never

        /// The notification center this publisher uses as a source.
        public let center: NotificationCenter
        /// The name of notifications published by this publisher.
        public let name: Notification.Name
        /// The object posting the named notification, if only its notifications are wanted.
        public let object: AnyObject?

        /// Creates a publisher that emits events when broadcasting notifications.
        public init(center: NotificationCenter, name: Notification.Name, object: AnyObject? = nil) {
            self.center = center
            self.name = name
            self.object = object
        }

        /// Observes the center for the subscriber; notifications beyond its demand are dropped (as in Combine).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let subscription = NotificationSubscription(downstream: subscriber)
            subscriber.receive(subscription: subscription)
            subscription.observe(center, name: name, object: object)
        }
    }

    /// Returns a publisher that emits events when broadcasting notifications.
    ///
    /// ```swift
    /// center.publisher(for: Notification.Name("saved")).map(\.object)
    /// ```
    public func publisher(for name: Notification.Name, object: AnyObject? = nil) -> NotificationCenter.Publisher {
        Publisher(center: self, name: name, object: object)
    }
}

/// One subscriber's observation of a notification center, removed on cancel.
// NB: @unchecked Sendable: demand and the observer token are Mutex-guarded; the center calls the block on the
// posting thread, and Combine's contract lets notifications from several threads reach the subscriber.
private final class NotificationSubscription<Downstream: Subscriber>: Subscription, CombineDescribed,
    @unchecked Sendable
where Downstream.Input == Notification {
    var combineName: String { "NotificationCenter Observer" }
    private let state: Mutex<NotificationState<Downstream>>

    init(downstream: Downstream) { state = Mutex(NotificationState(downstream: downstream)) }

    func observe(_ center: NotificationCenter, name: Notification.Name, object: AnyObject?) {
        nonisolated(unsafe) let object = object
        let token = center.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            self?.deliver(note)
        }
        let stale = state.withLock { state -> Bool in
            guard state.downstream != nil else { return true }
            state.observation = (center, token)
            return false
        }
        if stale { center.removeObserver(token) }
    }

    private func deliver(_ note: Notification) {
        let downstream = state.withLock { state -> Downstream? in
            guard state.demand > 0, let downstream = state.downstream else { return nil }
            state.demand -= 1
            return downstream
        }
        guard let downstream else { return }
        let more = downstream.receive(note)
        if more > 0 { state.withLock { $0.demand += more } }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.demand += demand }
    }

    func cancel() {
        let observation = state.withLock { state -> (NotificationCenter, any NSObjectProtocol)? in
            state.downstream = nil
            defer { state.observation = nil }
            return state.observation
        }
        if let (center, token) = observation { center.removeObserver(token) }
    }
}

// NB: @unchecked Sendable: it only lives inside its subscription's Mutex.
private struct NotificationState<Downstream: Subscriber>: @unchecked Sendable {
    var downstream: Downstream?
    var demand = Subscribers.Demand.none
    var observation: (NotificationCenter, any NSObjectProtocol)?
}

extension NotificationCenter.Publisher: Equatable {
    /// Equal when both observe the same center, for the same name, from the same object (compared by identity).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.center === rhs.center && lhs.name == rhs.name && lhs.object === rhs.object
    }
}
