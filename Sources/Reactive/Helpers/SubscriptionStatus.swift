/// Where a subscriber stands with its upstream: waiting for a subscription, subscribed, or done.
// NB: @unchecked Sendable: it only lives inside a Mutex of the subscriber that owns it.
@usableFromInline
enum SubscriptionStatus: @unchecked Sendable {
    case awaiting
    case subscribed(any Subscription)
    case terminal

    /// Moves to `.terminal`, returning the subscription if there was one to cancel.
    @inlinable
    mutating func terminate() -> (any Subscription)? {
        defer { self = .terminal }
        if case .subscribed(let subscription) = self { return subscription }
        return nil
    }

    /// Takes `subscription` if none came before; false if one did (the caller cancels the newcomer).
    @inlinable
    mutating func accept(_ subscription: any Subscription) -> Bool {
        guard case .awaiting = self else { return false }
        self = .subscribed(subscription)
        return true
    }

    /// The live subscription, if any.
    @inlinable
    var subscription: (any Subscription)? {
        if case .subscribed(let subscription) = self { return subscription }
        return nil
    }
}
