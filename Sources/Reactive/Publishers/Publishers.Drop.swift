extension Publishers {
    /// A publisher that omits a specified number of elements before republishing subsequent elements.
    public struct Drop<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The number of elements to drop.
        public let count: Int

        /// Creates the publisher.
        public init(upstream: Upstream, count: Int) {
            precondition(count >= 0, "count must not be negative")
            self.upstream = upstream
            self.count = count
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            var remaining = count
            upstream.subscribe(
                subscriber, name: "Drop",
                step: { input in
                    guard remaining > 0 else { return .emit(input) }
                    remaining -= 1
                    return .drop
                })
        }
    }
}

extension Publisher {
    /// Omits the specified number of elements before republishing subsequent elements.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.dropFirst()   // 2, 3
    /// ```
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}
