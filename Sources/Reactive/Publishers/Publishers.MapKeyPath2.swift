extension Publishers {
    /// A publisher that publishes the values of two key paths as a tuple.
    public struct MapKeyPath2<Upstream: Publisher, Output0, Output1>: Publisher {
        /// A tuple of the two values.
        public typealias Output = (Output0, Output1)
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The key path of the first value.
        public let keyPath0: KeyPath<Upstream.Output, Output0>
        /// The key path of the second value.
        public let keyPath1: KeyPath<Upstream.Output, Output1>

        /// Attaches the subscriber through a mapping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let (keyPath0, keyPath1) = (keyPath0, keyPath1)
            upstream.subscribe(
                subscriber, name: "ValueForKeys", strictness: .passThrough,
                mirror: { _ in [("keyPath0", keyPath0), ("keyPath1", keyPath1)] },
                step: { input in .emit((input[keyPath: keyPath0], input[keyPath: keyPath1])) })
        }
    }

    /// A publisher that publishes the values of three key paths as a tuple.
    public struct MapKeyPath3<Upstream: Publisher, Output0, Output1, Output2>: Publisher {
        /// A tuple of the three values.
        public typealias Output = (Output0, Output1, Output2)
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The key path of the first value.
        public let keyPath0: KeyPath<Upstream.Output, Output0>
        /// The key path of the second value.
        public let keyPath1: KeyPath<Upstream.Output, Output1>
        /// The key path of the third value.
        public let keyPath2: KeyPath<Upstream.Output, Output2>

        /// Attaches the subscriber through a mapping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let (keyPath0, keyPath1, keyPath2) = (keyPath0, keyPath1, keyPath2)
            upstream.subscribe(
                subscriber, name: "ValueForKeys", strictness: .passThrough,
                mirror: { _ in [("keyPath0", keyPath0), ("keyPath1", keyPath1), ("keyPath2", keyPath2)] },
                step: { input in
                    .emit((input[keyPath: keyPath0], input[keyPath: keyPath1], input[keyPath: keyPath2]))
                })
        }
    }
}

extension Publisher {
    /// Publishes the values of two key paths as a tuple.
    ///
    /// ```swift
    /// people.map(\.name, \.age)
    /// ```
    public func map<T0, T1>(_ keyPath0: KeyPath<Output, T0>, _ keyPath1: KeyPath<Output, T1>)
        -> Publishers.MapKeyPath2<Self, T0, T1>
    {
        Publishers.MapKeyPath2(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1)
    }

    /// Publishes the values of three key paths as a tuple.
    ///
    /// ```swift
    /// people.map(\.name, \.age, \.city)
    /// ```
    public func map<T0, T1, T2>(
        _ keyPath0: KeyPath<Output, T0>, _ keyPath1: KeyPath<Output, T1>, _ keyPath2: KeyPath<Output, T2>
    ) -> Publishers.MapKeyPath3<Self, T0, T1, T2> {
        Publishers.MapKeyPath3(upstream: self, keyPath0: keyPath0, keyPath1: keyPath1, keyPath2: keyPath2)
    }
}
