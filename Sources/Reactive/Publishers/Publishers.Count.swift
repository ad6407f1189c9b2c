extension Publishers {
    /// A publisher that publishes the number of elements received from the upstream publisher.
    public struct Count<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Int
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            var count = 0
            upstream.subscribe(
                subscriber, name: "Count",
                accumulate: { _ in
                    count += 1
                    return .more
                }, result: { count })
        }
    }
}

extension Publisher {
    /// Publishes the number of elements received from the upstream publisher.
    ///
    /// ```swift
    /// ["a", "b"].publisher.count()   // 2
    /// ```
    public func count() -> Publishers.Count<Self> {
        Publishers.Count(upstream: self)
    }
}
