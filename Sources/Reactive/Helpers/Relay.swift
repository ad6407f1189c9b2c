/// An operator's inner object (`UndescribedRelay`) that Combine describes: its description and playground
/// description are Combine's name for the operator, and its mirror has no children unless a subclass lists
/// Combine's fields.
// NB: @unchecked Sendable: the name is immutable; the rest is the base's.
class Relay<Input, UpstreamFailure: Error, Downstream: Subscriber>:
    UndescribedRelay<Input, UpstreamFailure, Downstream>, CombineDescribed, @unchecked Sendable
{
    /// Combine's name for the operator when the subclass serves several ("First", "Count"); else derived from
    /// the subclass's name.
    private final let name: String?

    init(downstream: Downstream, name: String? = nil) {
        self.name = name
        super.init(downstream: downstream)
    }

    /// Combine's name for this operator's subscription.
    final var combineName: String { name ?? Reactive.combineName(of: type(of: self)) }

    /// No children, as most of Combine's inner objects; a subclass whose Combine counterpart lists its fields
    /// overrides this.
    var customMirror: Mirror { Mirror(self, children: [:]) }
}
