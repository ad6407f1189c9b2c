extension Publishers {
    /// A publisher that only publishes the first element of a stream to satisfy an error-throwing predicate closure.
    public struct TryFirstWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The error-throwing closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            // As Combine: requests everything upstream and holds the match until the downstream asks for it.
            var first: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "TryFirstWhere",
                tryAccumulate: { input in
                    .catching {
                        guard try predicate(input) else { return .more }
                        first = input
                        return .done
                    }
                }, result: { first })
        }
    }
}

extension Publisher {
    /// Publishes the first element of a stream to satisfy an error-throwing predicate closure, then finishes.
    ///
    /// ```swift
    /// values.tryFirst { try $0.isValid() }
    /// ```
    public func tryFirst(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryFirstWhere<Self> {
        Publishers.TryFirstWhere(upstream: self, predicate: predicate)
    }
}
