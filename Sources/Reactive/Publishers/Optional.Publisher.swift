extension Optional {
    /// A publisher that publishes an optional value to each subscriber exactly once, if it has one; `nil` just
    /// finishes.
    ///
    /// ```swift
    /// Optional(3).publisher.sink { print($0) }   // 3
    /// ```
    public struct Publisher: Reactive.Publisher {
        /// The wrapped type.
        public typealias Output = Wrapped
        /// This publisher never fails.
        public typealias Failure = Never

        /// The value to deliver to each subscriber, if any.
        public let output: Wrapped?

        /// Creates a publisher to emit the value of the optional, or to finish immediately if it is `nil`.
        public init(_ output: Output?) { self.output = output }

        /// Attaches a subscriber: the value on its first request, or the completion at once for `nil`.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            guard let output else {
                subscriber.receive(subscription: Subscriptions.empty)
                return subscriber.receive(completion: .finished)
            }
            subscriber.receive(
                subscription: OneShotSubscription("Optional", shown: output) {
                    subscriber.receive(result: .success(output))
                })
        }
    }

    /// A publisher of this optional's value, if any.
    public var publisher: Publisher { Publisher(self) }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}
