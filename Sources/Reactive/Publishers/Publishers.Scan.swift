extension Publishers {
    /// A publisher that transforms elements from the upstream publisher by providing the current element to a closure along with the last value returned by the closure.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The previous result returned by the nextPartialResult closure.
        public let initialResult: Output
        /// A closure that takes as its arguments the previous value returned by the closure and the next element emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let next = nextPartialResult
            var accumulator = initialResult
            upstream.subscribe(
                subscriber, name: "Scan", strictness: .passThrough,
                mirror: { _ in [("downstream", subscriber), ("result", accumulator)] },
                step: { input in
                    accumulator = next(accumulator, input)
                    return .emit(accumulator)
                })
        }
    }
}

extension Publisher {
    /// Transforms elements from the upstream publisher by providing the current element to a closure along with
    /// the last value returned by the closure.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.scan(0, +)   // 1, 3, 6
    /// ```
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Scan<Self, T>
    {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}
