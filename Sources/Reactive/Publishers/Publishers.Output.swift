extension Publishers {
    /// A publisher that publishes elements specified by a range in the sequence of published elements.
    public struct Output<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The range of elements to publish.
        public let range: CountableRange<Int>

        /// Creates the publisher.
        public init(upstream: Upstream, range: CountableRange<Int>) {
            precondition(range.lowerBound >= 0, "lowerBound must not be negative")
            self.upstream = upstream
            self.range = range
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let range = range
            var index = 0
            upstream.subscribe(
                subscriber, name: "Output",
                step: { input in
                    defer { index += 1 }
                    if range.isEmpty || index >= range.upperBound { return .finish }
                    if index < range.lowerBound { return .drop }
                    return index == range.upperBound - 1 ? .emitAndFinish(input) : .emit(input)
                })
        }
    }
}

extension Publisher {
    /// Publishes a specific element, indicated by its index in the sequence of published elements.
    ///
    /// ```swift
    /// ["a", "b", "c"].publisher.output(at: 1)   // "b"
    /// ```
    public func output(at index: Int) -> Publishers.Output<Self> {
        Publishers.Output(upstream: self, range: index..<(index + 1))
    }

    /// Publishes elements specified by their range in the sequence of published elements.
    ///
    /// ```swift
    /// (0..<10).publisher.output(in: 2...4)   // 2, 3, 4
    /// ```
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
    }

    /// Republishes elements up to the specified maximum count, then finishes.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.prefix(2)   // 1, 2
    /// ```
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Publishers.Output(upstream: self, range: 0..<maxLength)
    }
}
