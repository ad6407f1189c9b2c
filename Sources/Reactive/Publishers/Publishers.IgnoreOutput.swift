extension Publishers {
    /// A publisher that ignores all upstream elements, but passes along the upstream publisher's completion state.
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Never
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates the publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            // As Combine: requests everything upstream (there is never a value to wait for demand).
            upstream.subscribe(subscriber, name: "IgnoreOutput", accumulate: { _ in .more }, result: { nil })
        }
    }
}

extension Publisher {
    /// Ignores all upstream elements, but passes along the upstream publisher's completion state.
    ///
    /// ```swift
    /// upload.ignoreOutput().sink(receiveCompletion: { print($0) }, receiveValue: { _ in })
    /// ```
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}
