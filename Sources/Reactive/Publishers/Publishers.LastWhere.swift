extension Publishers {
    /// A publisher that waits until after the stream finishes and then publishes the last element of the stream that satisfies a predicate closure.
    public struct LastWhere<Upstream: Publisher>: Publisher {
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
            var last: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "LastWhere",
                accumulate: { input in
                    if predicate(input) { last = input }
                    return .more
                }, result: { last })
        }
    }
}

extension Publisher {
    /// Publishes the last element of a stream that satisfies a predicate closure, after upstream finishes.
    ///
    /// ```swift
    /// [1, 4, 2].publisher.last { $0 > 1 }   // 2
    /// ```
    public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
        Publishers.LastWhere(upstream: self, predicate: predicate)
    }
}
