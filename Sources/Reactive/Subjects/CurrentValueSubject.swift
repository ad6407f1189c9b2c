import Synchronization

/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// ```swift
/// let tasks = CurrentValueSubject<[String], Never>(["Buy Milk"])
/// tasks.sink { print($0) }.store(in: &bag)   // prints ["Buy Milk"]
/// tasks.send(tasks.value + ["Walk"])
/// ```
// NB: @unchecked Sendable: all state is in a thread-safe core; sends from any thread are safe.
public final class CurrentValueSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    @usableFromInline let core: SubjectCore<Output, Failure>

    /// Creates a current value subject with the given initial value.
    @inlinable
    public init(_ value: Output) {
        core = SubjectCore(value: value)
    }

    /// The value wrapped by this subject, published as a new element whenever it changes.
    @inlinable
    public var value: Output {
        get { core.currentValue }
        set { core.setValue(newValue) }
    }

    /// Stores the value and sends it to every subscriber that has demand.
    @inlinable
    public func send(_ input: Output) { core.send(input, store: true) }

    /// Delivers the value first and stores it afterwards: `@Published`'s willSet timing.
    func sendBeforeStoring(_ input: Output) {
        core.send(input, store: false)
        core.lock.withLock { [core] list in
            if !list.completed { core.value = input }
        }
    }

    /// Sends a completion to every subscriber; later sends are ignored.
    public func send(completion: Subscribers.Completion<Failure>) { core.send(completion: completion) }

    /// Takes an upstream subscription and requests unlimited values from it.
    public func send(subscription: any Subscription) { core.send(subscription: subscription) }

    /// Attaches a subscriber; it receives the current value first, once it requests.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.receive(subscriber: subscriber, subject: self, deliversCurrentValue: true)
    }

    /// Attaches closures as a subscriber with unlimited demand: the current value first, then every new one.
    ///
    /// ```swift
    /// tasks.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) }).store(in: &bag)
    /// ```
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        core.sink(deliversCurrentValue: true, receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    }
}

extension CurrentValueSubject where Failure == Never {
    /// Attaches a closure as a subscriber with unlimited demand: the current value first, then every new one.
    ///
    /// ```swift
    /// tasks.sink { print($0) }.store(in: &bag)
    /// ```
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        core.sink(deliversCurrentValue: true, receiveCompletion: nil, receiveValue: receiveValue)
    }
}
