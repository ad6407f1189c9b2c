extension Result {
    /// A publisher that publishes the result once to each subscriber: the success value then a normal
    /// completion, or the failure at once.
    ///
    /// ```swift
    /// Result<Int, MyError>.success(1).publisher.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
    /// ```
    public struct Publisher: Reactive.Publisher {
        /// The success type.
        public typealias Output = Success

        /// The result to deliver to each subscriber.
        public let result: Result<Output, Failure>

        /// Creates a publisher that delivers the specified result.
        public init(_ result: Result<Output, Failure>) { self.result = result }

        /// Creates a publisher that sends the specified output.
        public init(_ output: Output) { self.init(.success(output)) }

        /// Creates a publisher that fails with the specified failure.
        public init(_ failure: Failure) { self.init(.failure(failure)) }

        /// Attaches a subscriber: a value waits for demand, a failure arrives at once (as in Combine).
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            switch result {
            case .success(let output):
                subscriber.receive(
                    subscription: OneShotSubscription("Once", shown: output) {
                        subscriber.receive(result: .success(output))
                    })
            case .failure(let failure):
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .failure(failure))
            }
        }
    }

    /// A publisher of this result.
    public var publisher: Publisher { Publisher(self) }
}

extension Result.Publisher: Equatable where Output: Equatable, Failure: Equatable {}
