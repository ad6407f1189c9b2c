/// A type-erasing subscriber.
///
/// ```swift
/// let subscriber = AnySubscriber<Int, Never>(receiveValue: { print($0); return .none })
/// ```
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible {
    private let receiveSubscriptionThunk: (any Subscription) -> Void
    private let receiveValueThunk: (Input) -> Subscribers.Demand
    private let receiveCompletionThunk: (Subscribers.Completion<Failure>) -> Void

    /// A unique identifier for identifying publisher streams.
    public let combineIdentifier: CombineIdentifier

    /// A textual representation of this subscriber.
    public var description: String { "AnySubscriber" }

    /// Creates a type-erasing subscriber to wrap an existing subscriber.
    public init<S: Subscriber>(_ s: S) where Input == S.Input, Failure == S.Failure {
        if let erased = s as? AnySubscriber<Input, Failure> {
            self = erased
            return
        }
        combineIdentifier = s.combineIdentifier
        receiveSubscriptionThunk = s.receive(subscription:)
        receiveValueThunk = s.receive(_:)
        receiveCompletionThunk = s.receive(completion:)
    }

    /// Creates a type-erasing subscriber that forwards to a subject.
    public init<S: Subject>(_ s: S) where Input == S.Output, Failure == S.Failure {
        combineIdentifier = CombineIdentifier(s)
        receiveSubscriptionThunk = { subscription in
            s.send(subscription: subscription)
        }
        receiveValueThunk = { value in
            s.send(value)
            return .none
        }
        receiveCompletionThunk = s.send(completion:)
    }

    /// Creates a type-erasing subscriber that executes the provided closures.
    public init(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        combineIdentifier = CombineIdentifier()
        receiveSubscriptionThunk = receiveSubscription ?? { _ in }
        receiveValueThunk = receiveValue ?? { _ in .none }
        receiveCompletionThunk = receiveCompletion ?? { _ in }
    }

    /// Forwards the subscription.
    public func receive(subscription: any Subscription) { receiveSubscriptionThunk(subscription) }
    /// Forwards the value.
    public func receive(_ value: Input) -> Subscribers.Demand { receiveValueThunk(value) }
    /// Forwards the completion.
    public func receive(completion: Subscribers.Completion<Failure>) { receiveCompletionThunk(completion) }
}
