extension Publishers {
    /// A publisher that publishes only elements that don't match the previous element, as evaluated by a provided error-throwing closure.
    public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// An error-throwing closure to evaluate whether two elements are equivalent, for purposes of filtering.
        public let predicate: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            var last: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "TryRemoveDuplicates", strictness: .strict,
                mirror: { _ in [("downstream", subscriber), ("last", last as Any)] },
                tryStep: { input in
                    .catching {
                        if let previous = last, try predicate(previous, input) { return .drop }
                        last = input
                        return .emit(input)
                    }
                })
        }
    }
}

extension Publisher {
    /// Publishes only elements that don't match the previous element, as evaluated by an error-throwing closure.
    ///
    /// ```swift
    /// readings.tryRemoveDuplicates { try $0.sameReading(as: $1) }
    /// ```
    public func tryRemoveDuplicates(
        by predicate: @escaping (Output, Output) throws -> Bool
    ) -> Publishers.TryRemoveDuplicates<Self> {
        Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
    }
}
