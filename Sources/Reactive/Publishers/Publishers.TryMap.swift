extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided error-throwing
    /// closure.
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        /// Any error thrown by the closure, or the upstream's failure.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The error-throwing closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) throws -> Output

        /// Creates a publisher that transforms elements with an error-throwing closure.
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through a throwing inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let transform = transform
            upstream.subscribe(
                subscriber, name: "TryMap", tryStep: { input in .catching { .emit(try transform(input)) } })
        }
    }
}

extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided error-throwing closure.
    ///
    /// ```swift
    /// dataTask.tryMap { output in
    ///     guard (output.response as? HTTPURLResponse)?.statusCode == 200 else { throw NetworkError.responseError }
    ///     return output.data
    /// }
    /// ```
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
        Publishers.TryMap(upstream: self, transform: transform)
    }
}

extension Publishers.TryMap {
    /// Fuses the throwing transform with another into one `TryMap` of the same upstream, as Combine does.
    ///
    /// ```swift
    /// subject.tryMap(parse).map { $0 * 2 }   // one TryMap of `subject`
    /// ```
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap<Upstream, T>(upstream: upstream) { transform(try first($0)) }
    }

    /// Fuses two throwing transforms into one `TryMap` of the same upstream.
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap<Upstream, T>(upstream: upstream) { try transform(try first($0)) }
    }
}
