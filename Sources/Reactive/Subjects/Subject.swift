import Synchronization

/// A publisher that exposes a method for outside callers to publish elements.
///
/// ```swift
/// let subject = PassthroughSubject<Int, Never>()
/// subject.send(1)
/// ```
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Sends a value to the subscriber.
    func send(_ value: Output)
    /// Sends a completion signal to the subscriber.
    func send(completion: Subscribers.Completion<Failure>)
    /// Sends a subscription to the subscriber.
    func send(subscription: any Subscription)
}

extension Subject where Output == Void {
    /// Sends a void value to the subscriber.
    public func send() { send(()) }
}

extension Publisher {
    /// Attaches the specified subject to this publisher; the returned cancellable ends the subscription.
    ///
    /// ```swift
    /// let cancellable = upstream.subscribe(subject)
    /// ```
    public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable where Failure == S.Failure, Output == S.Output {
        let subscriber = SubjectSubscriber(subject)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}

/// Forwards an upstream's events into a subject until cancelled, as Combine's `SubjectSubscriber` (also what
/// `AnySubscriber(subject)` wraps). The subject gets this object ("Subject") as its upstream subscription; its
/// requests and cancel go on to the upstream's subscription. It holds the subject weakly, as Combine's: the link
/// keeps nothing alive (a multicast's connection does not keep its subject), and a subject that is gone ends it.
// NB: @unchecked Sendable: all state is Mutex-guarded.
final class SubjectSubscriber<S: Subject>: Subscriber, Subscription, CombineDescribed, @unchecked Sendable {
    typealias Input = S.Output
    typealias Failure = S.Failure

    var combineName: String { "Subject" }

    private let state: Mutex<SubjectSubscriberState<S>>

    init(_ subject: S) { state = Mutex(SubjectSubscriberState(subject: subject)) }

    /// Combine's children: the subject (twice, as `downstreamSubject` and `subject`) and the upstream's
    /// subscription.
    var customMirror: Mirror {
        let (subject, upstream) = state.withLock { ($0.subject, $0.status.subscription) }
        return Mirror(
            self,
            children: [
                ("downstreamSubject", subject as Any), ("upstreamSubscription", upstream as Any),
                ("subject", subject as Any),
            ])
    }

    func receive(subscription: any Subscription) {
        let subject = state.withLock { state -> S? in
            guard case .awaiting = state.status, let subject = state.subject else { return nil }
            state.status = .subscribed(subscription)
            return subject
        }
        if let subject { subject.send(subscription: self) } else { subscription.cancel() }
    }

    /// A value is passed on only while subscribed (one before the subscription or after the end is dropped).
    func receive(_ input: Input) -> Subscribers.Demand {
        state.withLock { $0.status.subscription == nil ? nil : $0.subject }?.send(input)
        return .none
    }

    /// The completion is passed on only while subscribed, as in Combine, and ends the forwarding.
    func receive(completion: Subscribers.Completion<Failure>) {
        let subject = state.withLock { state -> S? in
            guard state.status.subscription != nil else { return nil }
            state.status = .terminal
            defer { state.subject = nil }
            return state.subject
        }
        subject?.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.status.subscription }?.request(demand)
    }

    func cancel() {
        let upstream = state.withLock { state -> (any Subscription)? in
            state.subject = nil
            return state.status.terminate()
        }
        upstream?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct SubjectSubscriberState<S: Subject>: @unchecked Sendable {
    weak var subject: S?
    var status = SubscriptionStatus.awaiting
}
