/// A protocol representing the connection of a subscriber to a publisher.
///
/// ```swift
/// subscription.request(.max(1))
/// ```
public protocol Subscription: Cancellable, CustomCombineIdentifierConvertible {
    /// Tells a publisher that it may send more values to the subscriber.
    func request(_ demand: Subscribers.Demand)
}
