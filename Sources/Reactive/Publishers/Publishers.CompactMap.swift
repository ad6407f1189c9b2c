extension Publishers {
    /// A publisher that republishes all non-nil results of calling a closure with each received element.
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that receives values from the upstream publisher and returns optional values.
        public let transform: (Upstream.Output) -> Output?

        /// Creates a publisher that republishes all non-nil results of calling a closure with each element.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through a transforming inner subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: CompactMapInner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publisher {
    /// Calls a closure with each received element and publishes any returned optional that has a value.
    ///
    /// ```swift
    /// strings.compactMap { URL(string: $0) }
    /// ```
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }
}

/// A nil result asks the upstream for one more, so the downstream's demand stays whole.
@usableFromInline
struct CompactMapInner<Input, Downstream: Subscriber>: Subscriber, CombineDescribed {
    /// Combine's name for this subscriber.
    @usableFromInline var combineName: String { "CompactMap" }
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline let downstream: Downstream
    @usableFromInline let transform: (Input) -> Downstream.Input?
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, transform: @escaping (Input) -> Downstream.Input?) {
        self.downstream = downstream
        self.transform = transform
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        if let output = transform(input) { return downstream.receive(output) }
        return .max(1)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
}

extension Publishers.CompactMap {
    /// Fuses two optional transforms into one `CompactMap` of the same upstream, as Combine does.
    ///
    /// ```swift
    /// strings.compactMap { Int($0) }.compactMap { $0 > 0 ? $0 : nil }   // one CompactMap of `strings`
    /// ```
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap<Upstream, T>(upstream: upstream) { first($0).flatMap(transform) }
    }

    /// Fuses the optional transform with a plain one into one `CompactMap` of the same upstream.
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap<Upstream, T>(upstream: upstream) { first($0).map(transform) }
    }
}
