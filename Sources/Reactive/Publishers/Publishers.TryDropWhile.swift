extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a given error-throwing closure returns false.
    public struct TryDropWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The error-throwing closure that indicates whether to drop the element.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            var dropping = true
            upstream.subscribe(
                subscriber, name: "TryDropWhile", strictness: .tolerantIgnoringEarlyValues,
                tryStep: { input in
                    .catching {
                        if dropping, try predicate(input) { return .drop }
                        dropping = false
                        return .emit(input)
                    }
                })
        }
    }
}

extension Publisher {
    /// Omits elements from the upstream publisher until an error-throwing closure returns false.
    ///
    /// ```swift
    /// values.tryDrop { try isWarmUp($0) }
    /// ```
    public func tryDrop(while predicate: @escaping (Output) throws -> Bool) -> Publishers.TryDropWhile<Self> {
        Publishers.TryDropWhile(upstream: self, predicate: predicate)
    }
}
