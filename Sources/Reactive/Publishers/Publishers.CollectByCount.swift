extension Publishers {
    /// A publisher that buffers a maximum number of items.
    public struct CollectByCount<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = [Upstream.Output]
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum number of received elements to buffer before publishing.
        public let count: Int

        /// Creates a publisher that buffers a maximum number of items.
        public init(upstream: Upstream, count: Int) {
            precondition(count > 0, "count must be greater than zero")
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber through a buffering inner object.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: CollectByCountInner(downstream: subscriber, count: Swift.max(count, 1)))
        }
    }
}

extension Publisher {
    /// Collects up to the specified number of elements, and then emits a single array of the collection.
    ///
    /// ```swift
    /// (0..<5).publisher.collect(2)   // [0, 1], [2, 3], [4]
    /// ```
    public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
        Publishers.CollectByCount(upstream: self, count: count)
    }
}

/// A downstream demand of n buffers becomes an upstream demand of n × count elements.
private final class CollectByCountInner<Element, UpstreamFailure: Error, Downstream: Subscriber>:
    Relay<Element, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == [Element], Downstream.Failure == UpstreamFailure {
    private let count: Int
    // NB: touched only inside `receive`, which Combine serializes, so no lock.
    private var buffer: [Element] = []

    init(downstream: Downstream, count: Int) {
        self.count = count
        super.init(downstream: downstream)
    }

    /// Combine's children: the downstream, the upstream subscription, the group so far and its size.
    override var customMirror: Mirror {
        let children: [Mirror.Child] = [
            ("downstream", downstream), ("upstreamSubscription", upstreamSubscription as Any), ("buffer", buffer),
            ("count", count),
        ]
        return Mirror(self, children: children)
    }

    override func receive(_ input: Element) -> Subscribers.Demand {
        guard isLive else { return .none }
        buffer.append(input)
        guard buffer.count == count else { return .none }
        let full = buffer
        buffer = []
        return downstream.receive(full) * count
    }

    // NB: as Combine's, every completion goes downstream, even one after a completion or a cancel; the partial
    // group goes before a finish only if the stream was still live (a cancel drops it).
    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let live = markCompleted(beforeSubscription: true)
        if live, case .finished = completion, !buffer.isEmpty {
            _ = downstream.receive(buffer)
        }
        buffer = []
        downstream.receive(completion: completion)
    }

    override func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        super.request(demand * count)
    }
}
