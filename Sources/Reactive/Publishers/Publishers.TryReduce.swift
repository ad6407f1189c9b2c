extension Publishers {
    /// A publisher that applies an error-throwing closure to all received elements and produces an accumulated value when the upstream publisher finishes.
    public struct TryReduce<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The initial value provided on the first invocation of the closure.
        public let initial: Output
        /// An error-throwing closure that takes the previously-accumulated value and the next element to produce a new value.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let next = nextPartialResult
            var accumulator = initial
            upstream.subscribe(
                subscriber, name: "TryReduce",
                tryAccumulate: { input in
                    .catching {
                        accumulator = try next(accumulator, input)
                        return .more
                    }
                }, result: { accumulator }, initial: initial)
        }
    }
}

extension Publisher {
    /// Applies an error-throwing closure that collects each element of a stream and publishes a final result upon
    /// completion.
    ///
    /// ```swift
    /// amounts.tryReduce(0) { total, next in try add(total, next) }
    /// ```
    public func tryReduce<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T
    ) -> Publishers.TryReduce<Self, T> {
        Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}
