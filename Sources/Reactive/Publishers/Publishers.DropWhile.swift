extension Publishers {
    /// A publisher that omits elements from an upstream publisher until a given closure returns false.
    public struct DropWhile<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The closure that indicates whether to drop the element.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            var dropping = true
            upstream.subscribe(
                subscriber, name: "DropWhile", strictness: .tolerantIgnoringEarlyValues,
                step: { input in
                    if dropping, predicate(input) { return .drop }
                    dropping = false
                    return .emit(input)
                })
        }
    }
}

extension Publisher {
    /// Omits elements from the upstream publisher until a given closure returns false, before republishing all
    /// remaining elements.
    ///
    /// ```swift
    /// [1, 2, 5, 1].publisher.drop { $0 < 3 }   // 5, 1
    /// ```
    public func drop(while predicate: @escaping (Output) -> Bool) -> Publishers.DropWhile<Self> {
        Publishers.DropWhile(upstream: self, predicate: predicate)
    }
}
