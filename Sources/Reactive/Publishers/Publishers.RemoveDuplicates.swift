extension Publishers {
    /// A publisher that publishes only elements that don't match the previous element.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure to evaluate whether two elements are equivalent, for purposes of filtering.
        public let predicate: (Output, Output) -> Bool

        /// Creates a publisher that publishes only elements that don't match the previous element.
        public init(upstream: Upstream, predicate: @escaping (Output, Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a stepping inner subscriber that remembers the last element.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            var last: Output?
            upstream.subscribe(
                subscriber, name: "RemoveDuplicates", strictness: .strict,
                mirror: { _ in [("downstream", subscriber), ("last", last as Any)] },
                step: { input in
                    if let last, predicate(last, input) { return .drop }
                    last = input
                    return .emit(input)
                })
        }
    }
}

extension Publisher {
    /// Publishes only elements that don't match the previous element, as evaluated by a closure.
    ///
    /// ```swift
    /// points.removeDuplicates { $0.x == $1.x }
    /// ```
    public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool) -> Publishers.RemoveDuplicates<Self>
    {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }
}

extension Publisher where Output: Equatable {
    /// Publishes only elements that don't match the previous element.
    ///
    /// ```swift
    /// [1, 1, 2, 2, 1].publisher.removeDuplicates()   // 1, 2, 1
    /// ```
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: ==)
    }
}
