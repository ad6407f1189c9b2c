extension Publishers {
    /// A publisher that buffers items.
    public struct Collect<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = [Upstream.Output]
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
            var collected: [Upstream.Output] = []
            upstream.subscribe(
                subscriber, name: "Collect",
                accumulate: { input in
                    collected.append(input)
                    return .more
                }, result: { collected }, mirror: { [("count", collected.count)] })
        }
    }
}

extension Publisher {
    /// Collects all received elements, and emits a single array of the collection when the upstream publisher
    /// finishes.
    ///
    /// ```swift
    /// (0..<3).publisher.collect()   // [0, 1, 2]
    /// ```
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}
