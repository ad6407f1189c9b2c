extension Publishers {
    /// A publisher that republishes all non-nil results of calling an error-throwing closure with each received element.
    public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// An error-throwing closure that receives values from the upstream publisher and returns optional values.
        public let transform: (Upstream.Output) throws -> Output?

        /// Creates the publisher.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let transform = transform
            upstream.subscribe(
                subscriber, name: "TryCompactMap", strictness: .strict,
                tryStep: { input in .catching { try transform(input).map { .emit($0) } ?? .drop } })
        }
    }
}

extension Publisher {
    /// Calls an error-throwing closure with each received element and publishes any returned optional that has a value.
    ///
    /// ```swift
    /// lines.tryCompactMap { try parse($0) }
    /// ```
    public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
        Publishers.TryCompactMap(upstream: self, transform: transform)
    }
}

extension Publishers.TryCompactMap {
    /// Fuses the throwing optional transform with another into one `TryCompactMap` of the same upstream, as
    /// Combine does.
    ///
    /// ```swift
    /// strings.tryCompactMap(parse).compactMap { $0 > 0 ? $0 : nil }   // one TryCompactMap of `strings`
    /// ```
    public func compactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryCompactMap<Upstream, T>(upstream: upstream) { try first($0).flatMap(transform) }
    }
}
