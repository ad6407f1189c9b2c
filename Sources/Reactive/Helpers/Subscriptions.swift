/// A namespace for symbols related to subscriptions.
public enum Subscriptions {
    /// Returns the "empty" subscription, which ignores requests and cancellation.
    public static var empty: any Subscription { EmptySubscription.singleton }
}

/// The subscription handed to subscribers of publishers that are already complete.
private struct EmptySubscription: Subscription, CombineDescribed, Sendable {
    var combineName: String { "Empty" }
    static let singleton = EmptySubscription()
    let combineIdentifier = CombineIdentifier()
    func request(_ demand: Subscribers.Demand) {}
    func cancel() {}
}
