import Synchronization

/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// ```swift
/// let tasks = CurrentValueSubject<[String], Never>(["Buy Milk"])
/// tasks.sink { print($0) }.store(in: &bag)   // prints ["Buy Milk"]
/// tasks.send(tasks.value + ["Walk"])
/// ```
// NB: @unchecked Sendable: all state is behind one Mutex; sends from any thread are safe.
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    // NB: @unchecked Sendable: it only lives inside this subject's Mutex.
    private struct State: @unchecked Sendable {
        var list = ConduitList<Output, Failure>()
        var value: Output
    }

    private let state: Mutex<State>

    /// Creates a current value subject with the given initial value.
    public init(_ value: Output) {
        state = Mutex(State(value: value))
    }

    /// The value wrapped by this subject, published as a new element whenever it changes.
    public var value: Output {
        get { state.withLock { $0.value } }
        set { send(newValue) }
    }

    /// Stores the value and sends it to every subscriber that has demand.
    public func send(_ input: Output) {
        let conduits = state.withLock { state -> ContiguousArray<SubjectConduit<Output, Failure>> in
            guard state.list.completion == nil else { return [] }
            state.value = input
            return state.list.conduits
        }
        for conduit in conduits { conduit.offer(input) }
    }

    /// Delivers the value first and stores it afterwards: `@Published`'s willSet timing.
    func sendBeforeStoring(_ input: Output) {
        let conduits = state.withLock { $0.list.completion == nil ? $0.list.conduits : [] }
        for conduit in conduits { conduit.offer(input) }
        state.withLock { $0.value = input }
    }

    /// Sends a completion to every subscriber; later sends are ignored.
    public func send(completion: Subscribers.Completion<Failure>) {
        let conduits = state.withLock { $0.list.complete(completion) }
        for conduit in conduits { conduit.finish(completion) }
    }

    /// Takes an upstream subscription and requests unlimited values from it.
    public func send(subscription: any Subscription) {
        state.withLock { $0.list.upstreams.append(subscription) }
        subscription.request(.unlimited)
    }

    /// Attaches a subscriber; it receives the current value first, once it requests.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let (conduit, completion) = state.withLock { state in
            (state.list.attach(subscriber, parent: self, deliversCurrentValue: true), state.list.completion)
        }
        subscriber.connect(conduit, orComplete: completion)
    }
}

extension CurrentValueSubject: ConduitParent {
    func detach(_ conduit: SubjectConduit<Output, Failure>) {
        state.withLock { $0.list.detach(conduit) }
    }

    func currentValue() -> Output? { state.withLock { $0.value } }
}
