public import Synchronization

extension Subscribers {
    /// A simple subscriber that requests an unlimited number of values upon subscription.
    ///
    /// ```swift
    /// let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { print($0) })
    /// Just(1).subscribe(sink)
    /// ```
    // NB: @unchecked Sendable: the subscription slot is Mutex-guarded; the closures are Apple's
    // non-Sendable signatures and are only called on the upstream's (serialized) delivery path.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        @unchecked Sendable
    {
        /// The closure to execute on receipt of a value.
        public let receiveValue: (Input) -> Void
        /// The closure to execute on completion.
        public let receiveCompletion: (Subscribers.Completion<Failure>) -> Void
        @usableFromInline let status = Mutex<SubscriptionStatus>(.awaiting)

        /// Initializes a sink with the provided closures.
        @inlinable
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            self.receiveCompletion = receiveCompletion
            self.receiveValue = receiveValue
        }

        /// A textual representation of this subscriber.
        public var description: String { "Sink" }

        /// Stores the subscription and requests unlimited values.
        public func receive(subscription: any Subscription) {
            let accepted = status.withLock { status -> Bool in
                guard case .awaiting = status else { return false }
                status = .subscribed(subscription)
                return true
            }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Calls `receiveValue`.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            receiveValue(value)
            return .none
        }

        /// Calls `receiveCompletion` once and lets go of the subscription.
        public func receive(completion: Subscribers.Completion<Failure>) {
            let wasLive = status.withLock { status -> Bool in
                if case .terminal = status { return false }
                status = .terminal
                return true
            }
            if wasLive { receiveCompletion(completion) }
        }

        /// Cancels the subscription; no completion is delivered afterwards.
        public func cancel() {
            status.withLock { $0.terminate() }?.cancel()
        }
    }
}

extension Publisher {
    /// Attaches a subscriber with closure-based behavior.
    ///
    /// ```swift
    /// publisher.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) }).store(in: &bag)
    /// ```
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        receive(subscriber: sink)
        return AnyCancellable(object: sink)
    }
}

extension Publisher where Failure == Never {
    /// Attaches a subscriber with closure-based behavior to a publisher that never fails.
    ///
    /// ```swift
    /// subject.sink { print($0) }.store(in: &bag)
    /// ```
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
