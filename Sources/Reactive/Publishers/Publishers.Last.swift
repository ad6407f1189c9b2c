extension Publishers {
    /// A publisher that waits until after the stream finishes, and then publishes the last element of the stream.
    public struct Last<Upstream: Publisher>: Publisher {
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
            var last: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "Last",
                accumulate: { input in
                    last = input
                    return .more
                }, result: { last })
        }
    }
}

extension Publisher {
    /// Publishes the last element of a stream, after the stream finishes.
    ///
    /// ```swift
    /// [3, 4].publisher.last()   // 4
    /// ```
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }
}
