import Synchronization

extension Publishers {
    /// A publisher that uses a subject to deliver elements to multiple subscribers.
    // NB: @unchecked Sendable: the lazily created subject and the connection are Mutex-guarded.
    public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher, @unchecked Sendable
    where Upstream.Failure == SubjectType.Failure, Upstream.Output == SubjectType.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// A closure to create a new Subject each time a subscriber attaches to the multicast publisher.
        public let createSubject: () -> SubjectType
        private let subject = Mutex<SubjectSlot<SubjectType>>(SubjectSlot())

        /// Creates a multicast publisher that applies a closure to create a subject that delivers elements to
        /// subscribers.
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
        }

        private var lazySubject: SubjectType {
            subject.withLock { slot in
                if let existing = slot.subject { return existing }
                let created = createSubject()
                slot.subject = created
                return created
            }
        }

        /// Attaches the subscriber to the shared subject, through a "Multicast" subscription of its own.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            lazySubject.subscribe(MulticastInner(downstream: subscriber))
        }

        /// Subscribes the shared subject to the upstream.
        public func connect() -> any Cancellable {
            upstream.subscribe(lazySubject)
        }
    }
}

/// One subscriber's link to a multicast's subject, as in Combine: the downstream gets this object ("Multicast")
/// as its subscription once the subject has handed over its own; requests and cancel go to the subject's
/// subscription, and the demand the downstream returns for a value is requested from it (the subject is told
/// `.none`). The subject's conduit holds the subject until it ends (as Combine's do), while the connection
/// holds it only weakly: subscribers keep a multicast's subject alive, its connection does not.
// NB: @unchecked Sendable: the status is Mutex-guarded; the downstream is called outside the lock.
private final class MulticastInner<Downstream: Subscriber>: Subscriber, Subscription, CombineDescribed,
    @unchecked Sendable
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let downstream: Downstream
    private let status = Mutex(SubscriptionStatus.awaiting)
    var combineName: String { "Multicast" }

    init(downstream: Downstream) { self.downstream = downstream }

    func receive(subscription: any Subscription) {
        guard status.withLock({ $0.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let subject = status.withLock({ $0.subscription }) else { return .none }
        let more = downstream.receive(input)
        if more > 0 { subject.request(more) }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let live = status.withLock { status -> Bool in
            guard status.subscription != nil else { return false }
            status = .terminal
            return true
        }
        if live { downstream.receive(completion: completion) }
    }

    func request(_ demand: Subscribers.Demand) {
        status.withLock { $0.subscription }?.request(demand)
    }

    func cancel() {
        status.withLock { $0.terminate() }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its publisher's Mutex.
private struct SubjectSlot<SubjectType>: @unchecked Sendable {
    var subject: SubjectType?
}

extension Publisher {
    /// Applies a closure to create a subject that delivers elements to subscribers.
    ///
    /// ```swift
    /// let shared = fetch.multicast { PassthroughSubject<Data, URLError>() }
    /// ```
    public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self, createSubject: createSubject)
    }

    /// Provides a subject to deliver elements to multiple subscribers.
    ///
    /// ```swift
    /// let shared = fetch.multicast(subject: PassthroughSubject())
    /// ```
    public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
    where Failure == S.Failure, Output == S.Output {
        Publishers.Multicast(upstream: self, createSubject: { subject })
    }

    /// Shares the output of an upstream publisher with multiple subscribers.
    ///
    /// ```swift
    /// let shared = fetch.share()
    /// ```
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}

extension Publisher where Failure == Never {
    /// Creates a connectable wrapper around the publisher.
    ///
    /// ```swift
    /// let connectable = ticks.makeConnectable()
    /// ```
    public func makeConnectable() -> Publishers.MakeConnectable<Self> {
        Publishers.MakeConnectable(upstream: self)
    }
}

extension Publishers {
    /// A publisher that shares the output of an upstream publisher with multiple subscribers.
    // NB: @unchecked Sendable: it only holds an immutable reference to a thread-safe autoconnect.
    public final class Share<Upstream: Publisher>: Publisher, Equatable, @unchecked Sendable {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        private let inner: Autoconnect<Multicast<Upstream, PassthroughSubject<Output, Failure>>>

        /// Creates a publisher that shares the output of an upstream publisher with multiple subscribers.
        public init(upstream: Upstream) {
            self.upstream = upstream
            inner = Autoconnect(upstream: Multicast(upstream: upstream, createSubject: { PassthroughSubject() }))
        }

        /// Attaches the subscriber; the first one connects to the upstream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.receive(subscriber: subscriber)
        }

        /// Identity equality.
        public static func == (lhs: Share, rhs: Share) -> Bool { lhs === rhs }
    }

    /// A publisher that provides explicit connectability to another publisher.
    public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        private let inner: Multicast<Upstream, PassthroughSubject<Output, Failure>>

        /// Creates a connectable publisher, attached to the provide upstream publisher.
        public init(upstream: Upstream) {
            inner = Multicast(upstream: upstream, createSubject: { PassthroughSubject() })
        }

        /// Attaches the subscriber; nothing flows until `connect()`.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.receive(subscriber: subscriber)
        }

        /// Connects to the upstream.
        public func connect() -> any Cancellable { inner.connect() }
    }

    /// A publisher that automatically connects to an upstream connectable publisher when the first subscriber
    /// attaches, and disconnects when the last one leaves.
    // NB: @unchecked Sendable: the subscriber count and connection are Mutex-guarded.
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher, @unchecked Sendable {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream
        private let state = Mutex(AutoconnectState.disconnected)

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        public init(upstream: Upstream) { self.upstream = upstream }

        /// Attaches the subscriber, connecting if no connection is open.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let connected = state.withLock { state -> Bool in
                guard case .connected(let count, let connection) = state else { return false }
                state = .connected(subscribers: count + 1, connection)
                return true
            }
            upstream.subscribe(AutoconnectInner(parent: self, downstream: subscriber))
            guard !connected else { return }
            // NB: the connection is recorded after the upstream subscription, as in Combine: a subscriber that
            // subscribes from inside the first one's subscription connects again, and the later connection wins.
            let connection = upstream.connect()
            state.withLock { $0 = .connected(subscribers: 1, connection) }
        }

        /// A subscriber left: the last one closes the connection.
        fileprivate func release() {
            state.withLock { state -> (any Cancellable)? in
                guard case .connected(let count, let connection) = state else { return nil }
                if count > 1 {
                    state = .connected(subscribers: count - 1, connection)
                    return nil
                }
                state = .disconnected
                return connection
            }?.cancel()
        }
    }
}

/// Whether an autoconnect publisher holds a connection, and for how many subscribers.
// NB: @unchecked Sendable: it only lives inside its publisher's Mutex.
private enum AutoconnectState: @unchecked Sendable {
    case disconnected
    case connected(subscribers: Int, any Cancellable)
}

/// An autoconnect publisher's subscriber ("Autoconnect"): it passes every event down as it comes (Combine's
/// autoconnect keeps no state of its own, so even events after a completion go on), and hands the downstream
/// the upstream's subscription wrapped only to learn of the cancel.
// NB: @unchecked Sendable: immutable; the upstream is thread-safe by contract.
private final class AutoconnectInner<Upstream: ConnectablePublisher, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Upstream.Output == Downstream.Input, Upstream.Failure == Downstream.Failure {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let parent: Publishers.Autoconnect<Upstream>
    private let downstream: Downstream

    init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    var description: String { "Autoconnect" }
    var playgroundDescription: Any { description }
    var customMirror: Mirror { Mirror(self, children: ["parent": parent, "downstream": downstream]) }

    func receive(subscription: any Subscription) {
        downstream.receive(subscription: AutoconnectSubscription(subscription, release: parent.release))
    }

    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }

    func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
}

/// The upstream's subscription as an autoconnect subscriber sees it: the same name and identity, and the
/// first cancel also tells the publisher that one subscriber fewer needs the connection.
// NB: @unchecked Sendable: the flag is atomic; the rest is immutable.
private final class AutoconnectSubscription: Subscription, CustomStringConvertible,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    private let upstream: any Subscription
    private let release: () -> Void
    private let cancelled = Atomic<Bool>(false)

    init(_ upstream: any Subscription, release: @escaping () -> Void) {
        self.upstream = upstream
        self.release = release
    }

    var combineIdentifier: CombineIdentifier { upstream.combineIdentifier }
    var description: String { String(describing: upstream) }
    var playgroundDescription: Any {
        (upstream as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription ?? description
    }

    func request(_ demand: Subscribers.Demand) { upstream.request(demand) }

    /// Every cancel goes on to the upstream (as in Combine); only the first one counts as a subscriber leaving.
    func cancel() {
        upstream.cancel()
        if !cancelled.exchange(true, ordering: .acquiringAndReleasing) { release() }
    }
}
