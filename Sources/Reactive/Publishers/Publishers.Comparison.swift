extension Publishers {
    /// A publisher that republishes items from another publisher only if each new item is in increasing order from the previously-published item.
    public struct Comparison<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that receives two elements and returns true if they are in increasing order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let ordered = areInIncreasingOrder
            var best: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "Comparison",
                accumulate: { input in
                    if let current = best, !ordered(current, input) { return .more }
                    best = input
                    return .more
                }, result: { best })
        }
    }
}

extension Publisher {
    /// Publishes the maximum value received from the upstream publisher, using the provided ordering closure.
    ///
    /// ```swift
    /// words.max { $0.count < $1.count }
    /// ```
    public func max(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }

    /// Publishes the minimum value received from the upstream publisher, using the provided ordering closure.
    ///
    /// ```swift
    /// words.min { $0.count < $1.count }
    /// ```
    public func min(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: { areInIncreasingOrder($1, $0) })
    }
}

extension Publisher where Output: Comparable {
    /// Publishes the maximum value received from the upstream publisher, after it finishes.
    ///
    /// ```swift
    /// [3, 9, 1].publisher.max()   // 9
    /// ```
    public func max() -> Publishers.Comparison<Self> { max(by: <) }

    /// Publishes the minimum value received from the upstream publisher, after it finishes.
    ///
    /// ```swift
    /// [3, 9, 1].publisher.min()   // 1
    /// ```
    public func min() -> Publishers.Comparison<Self> { min(by: <) }
}
