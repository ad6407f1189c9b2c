extension Publishers {
    /// A publisher that only publishes the first element of a stream to satisfy a predicate closure.
    public struct FirstWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            // As Combine: requests everything upstream and holds the match until the downstream asks for it.
            var first: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "TryFirst",
                accumulate: { input in
                    guard predicate(input) else { return .more }
                    first = input
                    return .done
                }, result: { first })
        }
    }
}

extension Publisher {
    /// Publishes the first element of a stream to satisfy a predicate closure, then finishes.
    ///
    /// ```swift
    /// [1, 4, 6].publisher.first { $0 > 3 }   // 4
    /// ```
    public func first(where predicate: @escaping (Output) -> Bool) -> Publishers.FirstWhere<Self> {
        Publishers.FirstWhere(upstream: self, predicate: predicate)
    }
}
