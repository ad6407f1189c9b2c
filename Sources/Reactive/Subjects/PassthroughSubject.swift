import Synchronization

/// A subject that broadcasts elements to downstream subscribers.
///
/// ```swift
/// let taps = PassthroughSubject<String, Never>()
/// taps.sink { print($0) }.store(in: &bag)
/// taps.send("hello")
/// ```
// NB: @unchecked Sendable: all state is behind one Mutex; sends from any thread are safe.
public final class PassthroughSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    private let state = Mutex(ConduitList<Output, Failure>())

    /// Creates a subject with no subscribers.
    public init() {}

    /// Sends a value to every subscriber that has demand.
    public func send(_ input: Output) {
        let conduits = state.withLock { $0.completion == nil ? $0.conduits : [] }
        for conduit in conduits { conduit.offer(input) }
    }

    /// Sends a completion to every subscriber; later sends are ignored.
    public func send(completion: Subscribers.Completion<Failure>) {
        let conduits = state.withLock { $0.complete(completion) }
        for conduit in conduits { conduit.finish(completion) }
    }

    /// Takes an upstream subscription and requests unlimited values from it.
    public func send(subscription: any Subscription) {
        state.withLock { $0.upstreams.append(subscription) }
        subscription.request(.unlimited)
    }

    /// Attaches a subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let (conduit, completion) = state.withLock { list in
            (list.attach(subscriber, parent: self, deliversCurrentValue: false), list.completion)
        }
        subscriber.connect(conduit, orComplete: completion)
    }
}

extension PassthroughSubject: ConduitParent {
    func detach(_ conduit: SubjectConduit<Output, Failure>) {
        state.withLock { $0.detach(conduit) }
    }

    func currentValue() -> Output? { nil }
}
