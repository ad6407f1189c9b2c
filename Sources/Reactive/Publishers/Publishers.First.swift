extension Publishers {
    /// A publisher that publishes the first element of a stream, then finishes.
    public struct First<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
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
            // As Combine: requests everything upstream and holds the value until the downstream asks for it.
            var first: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "First",
                accumulate: { input in
                    first = input
                    return .done
                }, result: { first })
        }
    }
}

extension Publisher {
    /// Publishes the first element of a stream, then finishes.
    ///
    /// ```swift
    /// [3, 4].publisher.first()   // 3
    /// ```
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self)
    }
}
