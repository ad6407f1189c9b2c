/// A type-erasing subscriber.
///
/// ```swift
/// let subscriber = AnySubscriber<Int, Never>(receiveValue: { print($0); return .none })
/// ```
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    private let receiveSubscriptionThunk: (any Subscription) -> Void
    private let receiveValueThunk: (Input) -> Subscribers.Demand
    private let receiveCompletionThunk: (Subscribers.Completion<Failure>) -> Void
    private let descriptionThunk: () -> String
    private let mirrorThunk: () -> Mirror

    /// A unique identifier for identifying publisher streams.
    public let combineIdentifier: CombineIdentifier

    /// The wrapped subscriber's description; "Subject" for a subject, "Anonymous AnySubscriber" for closures.
    public var description: String { descriptionThunk() }

    /// The wrapped subscriber's mirror, as Combine's; a string's for one made of closures.
    public var customMirror: Mirror { mirrorThunk() }

    /// The wrapped subscriber's description, as `description`.
    public var playgroundDescription: Any { descriptionThunk() }

    /// Creates a type-erasing subscriber to wrap an existing subscriber.
    public init<S: Subscriber>(_ s: S) where Input == S.Input, Failure == S.Failure {
        if let erased = s as? AnySubscriber<Input, Failure> {
            self = erased
            return
        }
        combineIdentifier = s.combineIdentifier
        descriptionThunk = { String(describing: s) }
        mirrorThunk = { Mirror(reflecting: s) }
        receiveSubscriptionThunk = s.receive(subscription:)
        receiveValueThunk = s.receive(_:)
        receiveCompletionThunk = s.receive(completion:)
    }

    /// Creates a type-erasing subscriber that forwards to a subject, as Combine's: through the subscriber that
    /// `subscribe(_: Subject)` uses ("Subject"; it holds the subject weakly, takes one subscription and passes
    /// one completion).
    public init<S: Subject>(_ s: S) where Input == S.Output, Failure == S.Failure {
        self.init(SubjectSubscriber(s))
    }

    /// Creates a type-erasing subscriber that executes the provided closures.
    public init(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        combineIdentifier = CombineIdentifier()
        descriptionThunk = { "Anonymous AnySubscriber" }
        mirrorThunk = { Mirror(reflecting: "Anonymous AnySubscriber") }
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
