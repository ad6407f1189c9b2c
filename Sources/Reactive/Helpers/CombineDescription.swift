/// A subscription or subscriber that describes itself as Combine's does: `description` and
/// `playgroundDescription` are Combine's name for it ("Map", "PassthroughSubject"), the mirror has no children.
@usableFromInline
protocol CombineDescribed: CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
    /// Combine's name for this subscription or subscriber.
    var combineName: String { get }
}

extension CombineDescribed {
    /// Combine's name.
    @usableFromInline var description: String { combineName }
    /// No children, as Combine's mirrors of its subscriptions.
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    /// Combine's name.
    @usableFromInline var playgroundDescription: Any { combineName }
}

/// Combine's name for an operator's inner type: its name without `Inner` and generic arguments
/// (`ThrottleInner<…>` is "Throttle").
func combineName(of type: Any.Type) -> String {
    var name = String(describing: type)
    if let generic = name.firstIndex(of: "<") { name = String(name[..<generic]) }
    if name.hasSuffix("Inner") { name.removeLast("Inner".count) }
    return name
}

/// The subscription an operator that forwards its upstream's subscription hands downstream instead, so the
/// downstream sees the operator's name, as in Combine; requests and cancels go straight to the upstream.
@usableFromInline
final class NamedSubscription: Subscription, CombineDescribed, @unchecked Sendable {
    // NB: @unchecked Sendable: both fields are immutable; the upstream subscription is thread-safe by contract.
    @usableFromInline let combineName: String
    @usableFromInline let upstream: any Subscription

    @inlinable
    init(_ combineName: String, _ upstream: any Subscription) {
        self.combineName = combineName
        self.upstream = upstream
    }

    @inlinable func request(_ demand: Subscribers.Demand) { upstream.request(demand) }
    @inlinable func cancel() { upstream.cancel() }
}
