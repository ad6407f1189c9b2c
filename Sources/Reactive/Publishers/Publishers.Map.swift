extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided closure.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) -> Output

        /// Creates a publisher that transforms all elements from the upstream publisher.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through a transforming inner subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: MapInner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided closure.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.map { $0 * 10 }   // 10, 20, 30
    /// ```
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }
}

/// Passes the upstream subscription straight through, as Combine's `map` does: no state, no lock, no allocation.
@usableFromInline
struct MapInner<Input, Downstream: Subscriber>: Subscriber, CombineDescribed {
    /// Combine's name for this subscriber.
    @usableFromInline var combineName: String { "Map" }
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline let downstream: Downstream
    @usableFromInline let transform: (Input) -> Downstream.Input
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, transform: @escaping (Input) -> Downstream.Input) {
        self.downstream = downstream
        self.transform = transform
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(transform(input)) }

    @inlinable
    func receive(completion: Subscribers.Completion<Downstream.Failure>) { downstream.receive(completion: completion) }
}

extension Publishers.Map {
    /// Fuses two transforms into one `Map` of the same upstream, as Combine does.
    ///
    /// ```swift
    /// subject.map { $0 + 1 }.map { $0 * 2 }   // one Map of `subject`
    /// ```
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Upstream, T> {
        let first = self.transform
        return Publishers.Map<Upstream, T>(upstream: upstream) { transform(first($0)) }
    }

    /// Fuses the transform with a throwing one into one `TryMap` of the same upstream.
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap<Upstream, T>(upstream: upstream) { try transform(first($0)) }
    }
}
