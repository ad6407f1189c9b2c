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
            upstream.receive(subscriber: IgnoreOutputInner(downstream: subscriber))
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

/// Passes the upstream subscription straight through, as Combine's `ignoreOutput` does: the downstream's
/// requests reach the upstream as they are, every element is dropped without asking for another.
private struct IgnoreOutputInner<Input, Downstream: Subscriber>: Subscriber, CombineDescribed
where Downstream.Input == Never {
    typealias Failure = Downstream.Failure
    let downstream: Downstream
    let combineIdentifier = CombineIdentifier()
    /// Combine's name for this subscriber.
    var combineName: String { "IgnoreOutput" }

    /// The downstream gets the upstream's own subscription first; then, as Combine's, the upstream is asked for
    /// everything (every value is dropped anyway), and the downstream's own requests go on to it as well.
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
        subscription.request(.unlimited)
    }
    func receive(_ input: Input) -> Subscribers.Demand { .none }
    func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
}
