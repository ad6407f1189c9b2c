extension Publishers {
    /// A publisher that publishes the value of a key path.
    public struct MapKeyPath<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The key path of a property to publish.
        public let keyPath: KeyPath<Upstream.Output, Output>

        /// Creates the publisher.
        public init(upstream: Upstream, keyPath: KeyPath<Upstream.Output, Output>) {
            self.upstream = upstream
            self.keyPath = keyPath
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let keyPath = keyPath
            upstream.subscribe(
                subscriber, name: "ValueForKey", strictness: .passThrough, mirror: { _ in [("keyPath", keyPath)] },
                step: { input in .emit(input[keyPath: keyPath]) })
        }
    }
}

extension Publisher {
    /// Publishes the value of a key path.
    ///
    /// ```swift
    /// dataTask.map(\.data)
    /// ```
    public func map<T>(_ keyPath: KeyPath<Output, T>) -> Publishers.MapKeyPath<Self, T> {
        Publishers.MapKeyPath(upstream: self, keyPath: keyPath)
    }
}
