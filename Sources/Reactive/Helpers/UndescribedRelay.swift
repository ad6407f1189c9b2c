import Synchronization

/// Base of an operator's inner object that stands between an upstream subscription and its downstream:
/// it is the downstream's subscription, forwards demand and cancellation upstream, and lets go of the
/// upstream once it completes or is cancelled. Subclasses override the three `receive` methods. It has no
/// description or mirror of its own, as the few inner objects Combine leaves undescribed (`delay`'s); the
/// others derive from `Relay`.
// NB: @unchecked Sendable: the upstream slot is Mutex-guarded; `receive` calls are serialized by Combine's
// contract, so subclass state touched only there needs no lock.
class UndescribedRelay<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    @unchecked Sendable
{
    typealias Failure = UpstreamFailure

    /// The subscriber this operator feeds.
    final let downstream: Downstream
    private final let status = Mutex<SubscriptionStatus>(.awaiting)

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The upstream subscription while there is one (for mirrors).
    final var upstreamSubscription: (any Subscription)? { status.withLock { $0.subscription } }

    func receive(subscription: any Subscription) {
        let accepted = status.withLock { $0.accept(subscription) }
        guard accepted else { return subscription.cancel() }
        if requestsFirst {
            didSubscribe(subscription)
            downstream.receive(subscription: self)
        } else {
            downstream.receive(subscription: self)
            didSubscribe(subscription)
        }
    }

    /// Whether `didSubscribe` (the first request) runs before the downstream gets this subscription, as
    /// Combine's `buffer` does; the other operators hand it downstream first.
    var requestsFirst: Bool { false }

    /// Runs once the first subscription is accepted, after it is handed downstream unless `requestsFirst` (a
    /// second one is cancelled, and does not come here): the place for the operator's first request.
    func didSubscribe(_ subscription: any Subscription) {}

    /// Whether a cancel before the subscription cancels the subscription when it comes (Combine's `throttle`
    /// and `prefix(untilOutputFrom:)`); the other operators ignore it.
    var cancelsEarly: Bool { false }

    func receive(_ input: Input) -> Subscribers.Demand { .none }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {}

    func request(_ demand: Subscribers.Demand) {
        status.withLock { $0.subscription }?.request(demand)
    }

    func cancel() {
        let cancelsEarly = cancelsEarly
        status.withLock { status -> (any Subscription)? in
            if case .awaiting = status, !cancelsEarly { return nil }
            return status.terminate()
        }?.cancel()
    }

    /// Whether the relay holds a live upstream subscription (a value before the subscription or after the
    /// end is ignored, as in Combine).
    final var isLive: Bool {
        status.withLock { if case .subscribed = $0 { true } else { false } }
    }

    /// Whether the upstream has completed or been cancelled.
    final var isTerminal: Bool {
        status.withLock { if case .terminal = $0 { true } else { false } }
    }

    /// Records the upstream's completion; false if the relay had already ended, or (unless
    /// `beforeSubscription`) has no subscription yet: then ignore it.
    final func markCompleted(beforeSubscription: Bool = false) -> Bool {
        status.withLock { status -> Bool in
            switch status {
            case .terminal: return false
            case .awaiting where !beforeSubscription: return false
            case .awaiting, .subscribed:
                status = .terminal
                return true
            }
        }
    }

    /// Ends the relay from the middle of the stream (e.g. a thrown error): cancels the upstream and returns
    /// true if the relay was still live.
    final func cancelUpstream() -> Bool {
        let (wasLive, subscription) = status.withLock { status -> (Bool, (any Subscription)?) in
            if case .terminal = status { return (false, nil) }
            return (true, status.terminate())
        }
        subscription?.cancel()
        return wasLive
    }
}
