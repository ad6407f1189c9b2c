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

        /// Attaches the subscriber to the shared subject.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            lazySubject.subscribe(subscriber)
        }

        /// Subscribes the shared subject to the upstream.
        public func connect() -> any Cancellable {
            upstream.subscribe(lazySubject)
        }
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
        private let state = Mutex(AutoconnectState())

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        public init(upstream: Upstream) { self.upstream = upstream }

        /// Attaches the subscriber, connecting if it is the first.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let first = state.withLock { state -> Bool in
                state.subscribers += 1
                return state.subscribers == 1
            }
            upstream.receive(
                subscriber: AutoconnectInner(downstream: subscriber, release: { [weak self] in self?.release() }))
            if first {
                let connection = upstream.connect()
                state.withLock { $0.connection = connection }
            }
        }

        private func release() {
            state.withLock { state -> (any Cancellable)? in
                state.subscribers -= 1
                guard state.subscribers == 0 else { return nil }
                defer { state.connection = nil }
                return state.connection
            }?.cancel()
        }
    }
}

// NB: @unchecked Sendable: it only lives inside its publisher's Mutex.
private struct AutoconnectState: @unchecked Sendable {
    var subscribers = 0
    var connection: (any Cancellable)?
}

/// Tells the autoconnect publisher once when its subscriber leaves (cancel or completion).
private final class AutoconnectInner<Downstream: Subscriber>:
    Relay<Downstream.Input, Downstream.Failure, Downstream>, @unchecked Sendable
{
    private let release: Atomic<Bool> = Atomic(false)
    private let onRelease: () -> Void

    init(downstream: Downstream, release: @escaping () -> Void) {
        onRelease = release
        super.init(downstream: downstream)
    }

    private func leave() {
        if !release.exchange(true, ordering: .acquiringAndReleasing) { onRelease() }
    }

    override func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        isLive ? downstream.receive(input) : .none
    }

    override func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        guard markCompleted() else { return }
        downstream.receive(completion: completion)
        leave()
    }

    override func cancel() {
        super.cancel()
        leave()
    }
}
