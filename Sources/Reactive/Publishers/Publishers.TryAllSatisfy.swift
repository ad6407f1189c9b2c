extension Publishers {
    /// A publisher that publishes whether every element satisfies a throwing predicate.
    public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every element satisfied the predicate.
        public typealias Output = Bool
        /// The predicate may throw, so the failure is any error.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that evaluates each received element; a thrown error fails the publisher.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches the subscriber through a reducing inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let predicate = predicate
            var all = true
            upstream.subscribe(
                subscriber, name: "TryAllSatisfy",
                tryAccumulate: { input in
                    .catching {
                        all = try predicate(input)
                        return all ? .more : .done
                    }
                }, result: { all })
        }
    }

    /// A publisher that republishes the extreme element by a throwing ordering (`tryMin(by:)`, `tryMax(by:)`).
    public struct TryComparison<Upstream: Publisher>: Publisher {
        /// The extreme element.
        public typealias Output = Upstream.Output
        /// The ordering may throw, so the failure is any error.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that orders two elements; a thrown error fails the publisher.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(
            upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool
        ) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches the subscriber through a reducing inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let ordered = areInIncreasingOrder
            var best: Upstream.Output?
            upstream.subscribe(
                subscriber, name: "TryComparison",
                tryAccumulate: { input in
                    .catching {
                        if let current = best, try !ordered(current, input) { return .more }
                        best = input
                        return .more
                    }
                }, result: { best })
        }
    }
}

extension Publisher {
    /// Publishes whether every element satisfies a throwing predicate; a thrown error fails the publisher.
    ///
    /// ```swift
    /// [1, 2].publisher.tryAllSatisfy { try check($0) }
    /// ```
    public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool) -> Publishers.TryAllSatisfy<Self> {
        Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
    }

    /// Publishes the maximum element by a throwing ordering, once the upstream finishes.
    ///
    /// ```swift
    /// words.tryMax { try rank($0) < rank($1) }
    /// ```
    public func tryMax(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool)
        -> Publishers.TryComparison<Self>
    {
        Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }

    /// Publishes the minimum element by a throwing ordering, once the upstream finishes.
    ///
    /// ```swift
    /// words.tryMin { try rank($0) < rank($1) }
    /// ```
    public func tryMin(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool)
        -> Publishers.TryComparison<Self>
    {
        Publishers.TryComparison(upstream: self, areInIncreasingOrder: { try areInIncreasingOrder($1, $0) })
    }
}
