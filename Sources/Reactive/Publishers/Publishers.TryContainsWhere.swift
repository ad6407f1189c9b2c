extension Publishers {
    /// A publisher that emits a Boolean value upon receiving an element that satisfies the throwing predicate.
    public struct TryContainsWhere<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Bool
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The error-throwing closure that determines whether this publisher should emit a true element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            var found = false
            upstream.subscribe(
                subscriber, name: "TryContainsWhere",
                tryAccumulate: { input in
                    .catching {
                        found = try predicate(input)
                        return found ? .done : .more
                    }
                }, result: { found })
        }
    }
}

extension Publisher {
    /// Publishes a Boolean value upon receiving an element that satisfies the throwing predicate closure.
    ///
    /// ```swift
    /// values.tryContains { try $0.isBroken() }
    /// ```
    public func tryContains(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryContainsWhere<Self> {
        Publishers.TryContainsWhere(upstream: self, predicate: predicate)
    }
}
