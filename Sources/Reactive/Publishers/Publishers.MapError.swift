extension Publishers {
    /// A publisher that converts any failure from the upstream publisher into a new error.
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The closure that converts the upstream failure into a new error.
        public let transform: (Upstream.Failure) -> Failure

        /// Creates a publisher that converts any failure from the upstream publisher into a new error.
        public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            transform = map
        }

        /// Creates a publisher that converts any failure from the upstream publisher into a new error.
        public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches the subscriber through an error-mapping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: MapErrorInner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publisher {
    /// Converts any failure from the upstream publisher into a new error.
    ///
    /// ```swift
    /// fetch.mapError { _ in NetworkError.unknown }
    /// ```
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> Publishers.MapError<Self, E> {
        Publishers.MapError(upstream: self, transform: transform)
    }
}

private struct MapErrorInner<UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, CombineDescribed {
    /// Combine's name for this subscriber.
    var combineName: String { "MapError" }
    typealias Input = Downstream.Input
    let downstream: Downstream
    let transform: (UpstreamFailure) -> Downstream.Failure
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }
    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }
    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        downstream.receive(completion: completion.mapFailure(transform))
    }
}
