/// A protocol that declares a type that can receive input from a publisher.
///
/// ```swift
/// final class Printer: Subscriber {
///     func receive(subscription: any Subscription) { subscription.request(.unlimited) }
///     func receive(_ input: Int) -> Subscribers.Demand { print(input); return .none }
///     func receive(completion: Subscribers.Completion<Never>) {}
/// }
/// ```
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    /// The kind of values this subscriber receives.
    associatedtype Input
    /// The kind of errors this subscriber might receive.
    associatedtype Failure: Error

    /// Tells the subscriber that it has successfully subscribed to the publisher and may request items.
    func receive(subscription: any Subscription)
    /// Tells the subscriber that the publisher has produced an element; returns additional demand.
    func receive(_ input: Input) -> Subscribers.Demand
    /// Tells the subscriber that the publisher has completed publishing, either normally or with an error.
    func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
    /// Tells the subscriber that a publisher of void elements is ready to receive further requests.
    @inlinable
    public func receive() -> Subscribers.Demand { receive(()) }
}
