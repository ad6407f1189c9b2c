public import Synchronization

extension Publishers {
    /// A publisher that republishes elements until another publisher emits an element, then finishes.
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The publisher whose first element ends this one.
        public let other: Other

        /// Creates the publisher.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches the subscriber; the other publisher is watched for its first element from the start.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = UntilOutputInner<Upstream.Output, Failure, S>(downstream: subscriber, name: "PrefixUntilOutput")
            // The downstream has its subscription before the other publisher can end it.
            upstream.subscribe(inner)
            inner.watch(other) { [weak inner] in inner?.finishEarly() }
        }
    }

    /// A publisher that ignores elements from the upstream until another publisher emits an element.
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
    where Upstream.Failure == Other.Failure {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The publisher whose first element opens the gate.
        public let other: Other

        /// Creates the publisher.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Attaches the subscriber; elements pass once the other publisher has emitted.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = UntilOutputInner<Upstream.Output, Failure, S>(
                downstream: subscriber, name: "DropUntilOutput", gated: true)
            inner.watch(other, onFailure: { [weak inner] in inner?.fail($0) }) { [weak inner] in inner?.open() }
            upstream.subscribe(inner)
        }
    }
}

extension Publisher {
    /// Republishes elements until another publisher emits an element; then finishes.
    ///
    /// ```swift
    /// ticks.prefix(untilOutputFrom: stop)
    /// ```
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }

    /// Ignores elements from the upstream until another publisher emits an element.
    ///
    /// ```swift
    /// events.drop(untilOutputFrom: ready)
    /// ```
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
    where Failure == P.Failure {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}

/// The inner object of `prefix(untilOutputFrom:)` and `drop(untilOutputFrom:)`: relays the upstream and watches
/// the other publisher for its first element (which finishes the relay, or opens its gate).
final class UntilOutputInner<Input, UpstreamFailure: Error, Downstream: Subscriber>:
    Relay<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == UpstreamFailure {
    private let gate: Atomic<Bool>
    private let trigger = Mutex(SubscriptionStatus.awaiting)

    init(downstream: Downstream, name: String, gated: Bool = false) {
        gate = Atomic(gated)
        super.init(downstream: downstream, name: name)
    }

    override var cancelsEarly: Bool { combineName == "PrefixUntilOutput" }

    /// Subscribes to `other` for one element.
    func watch<P: Publisher>(
        _ other: P, onFailure: ((P.Failure) -> Void)? = nil, onOutput: @escaping () -> Void
    ) {
        let watcher = AnySubscriber<P.Output, P.Failure>(
            receiveSubscription: { [weak self] subscription in
                guard let self else { return subscription.cancel() }
                keepTrigger(subscription)
            },
            receiveValue: { _ in
                onOutput()
                return .none
            },
            receiveCompletion: { completion in
                if case .failure(let error) = completion { onFailure?(error) }
            })
        other.subscribe(watcher)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        guard isLive else { return .none }
        // NB: dropped while the gate is closed, asking for nothing more, as Combine's.
        if gate.load(ordering: .acquiring) { return .none }
        return downstream.receive(input)
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard markCompleted() else { return }
        stopWatching()
        downstream.receive(completion: completion)
    }

    override func cancel() {
        stopWatching()
        super.cancel()
    }

    /// The other publisher emitted: finish now (prefix).
    func finishEarly() {
        guard cancelUpstream() else { return }
        // NB: the other publisher has sent what it was asked for; as Combine's, it is let go, not cancelled.
        _ = trigger.withLock { $0.terminate() }
        downstream.receive(completion: .finished)
    }

    /// The other publisher emitted: let elements through from now on (drop).
    func open() { gate.store(false, ordering: .releasing) }

    /// The other publisher failed: fail (drop).
    func fail(_ error: UpstreamFailure) {
        guard cancelUpstream() else { return }
        downstream.receive(completion: .failure(error))
    }

    private func keepTrigger(_ subscription: any Subscription) {
        let live = trigger.withLock { status -> Bool in
            guard case .awaiting = status else { return false }
            status = .subscribed(subscription)
            return true
        }
        if live { subscription.request(.max(1)) } else { subscription.cancel() }
    }

    private func stopWatching() { trigger.withLock { $0.terminate() }?.cancel() }
}
