extension Publishers {
    /// A publisher that appears to send a specified failure type.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that appears to send a specified failure type.
        public init(upstream: Upstream) { self.upstream = upstream }

        /// Attaches the subscriber; the upstream can only finish, never fail.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: SetFailureTypeInner(downstream: subscriber))
        }

        /// Changes the failure type again.
        public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
            Publishers.SetFailureType<Upstream, E>(upstream: upstream)
        }
    }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publisher where Failure == Never {
    /// Changes the failure type declared by the upstream publisher.
    ///
    /// ```swift
    /// subject.setFailureType(to: URLError.self).flatMap { fetch($0) }
    /// ```
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}

private struct SetFailureTypeInner<Downstream: Subscriber>: Subscriber, CombineDescribed {
    /// Combine's name for this subscriber.
    var combineName: String { "SetFailureType" }
    typealias Input = Downstream.Input
    typealias Failure = Never
    let downstream: Downstream
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }
    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }
    func receive(completion: Subscribers.Completion<Never>) { downstream.receive(completion: .finished) }
}
