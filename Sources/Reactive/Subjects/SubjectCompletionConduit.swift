/// A subject's conduit whose subscriber wants its completion: a `Subscriber`, or a `sink` given a
/// `receiveCompletion` closure.
// NB: a subclass, so the conduits of plain value sinks do not carry a closure they never call; the completion
// is reached through the vtable, which costs nothing that matters once per subscription.
@usableFromInline
final class SubjectCompletionConduit<Output, Failure: Error>: SubjectConduit<Output, Failure>, @unchecked Sendable {
    /// What the conduit delivers the completion to; nil once dropped (cleared only by the delivery owner).
    @exclusivity(unchecked) @usableFromInline var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?
    /// The closures' shared context (a `ConduitTarget`: the subscriber and the subject), for the mirror; nil
    /// once dropped with them.
    // NB: cleared by the delivery owner like the closures; the mirror reads it without synchronization (a
    // debugging aid: reflect a conduit while no other thread ends its subscription).
    @usableFromInline var target: AnyObject?

    /// Installs both closures and their context (before the conduit is attached to its subject).
    @inlinable
    func install(
        onValue: @escaping (Output) -> Void, onCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        target: AnyObject
    ) {
        install(onValue: onValue)
        self.onCompletion = onCompletion
        self.target = target
    }

    @usableFromInline
    override func completionHandler() -> ((Subscribers.Completion<Failure>) -> Void)? { onCompletion }

    @usableFromInline
    override func releaseHandlers() {
        super.releaseHandlers()
        onCompletion = nil
        target = nil
    }

    override var mirrorSource: (any ConduitMirrorSource)? { target as? any ConduitMirrorSource }
}
