import Reactive
import Synchronization

/// What a `RecordingSubscription` was asked.
enum SubscriptionCall: Equatable, Sendable {
    case requested(Subscribers.Demand)
    case cancelled
}

/// A subscription that records every request and cancel, and otherwise does nothing.
final class RecordingSubscription: Subscription, CustomStringConvertible, Sendable {
    private let log = Mutex<[SubscriptionCall]>([])

    /// The calls so far, in order.
    var calls: [SubscriptionCall] { log.withLock { $0 } }
    var description: String { "RecordingSubscription" }

    func request(_ demand: Subscribers.Demand) { log.withLock { $0.append(.requested(demand)) } }
    func cancel() { log.withLock { $0.append(.cancelled) } }
}

/// A publisher driven by hand: it keeps the subscriber an operator attaches and hands it nothing until the
/// test calls `subscribe`, `send` or `finish`, so a test can misbehave as an upstream may (a value before the
/// subscription, a second subscription, a completion after a completion).
final class ManualPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    // NB: @unchecked Sendable: tests drive it from one thread.
    private(set) var subscriber: AnySubscriber<Output, Failure>?
    /// The operator's inner subscriber as attached, before erasure (to reach it as a `Subscription`).
    private(set) var attached: Any = ()
    let subscription = RecordingSubscription()

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        self.subscriber = AnySubscriber(subscriber)
        attached = subscriber
    }

    /// Hands `subscription` (by default the publisher's own) to the subscriber.
    func subscribe(_ subscription: (any Subscription)? = nil) {
        subscriber?.receive(subscription: subscription ?? self.subscription)
    }

    /// Sends a value, returning the demand the subscriber gave back.
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand { subscriber?.receive(value) ?? .none }

    func send(completion: Subscribers.Completion<Failure>) { subscriber?.receive(completion: completion) }
}
