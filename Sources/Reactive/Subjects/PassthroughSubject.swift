/// A subject that broadcasts elements to downstream subscribers.
///
/// ```swift
/// let taps = PassthroughSubject<String, Never>()
/// taps.sink { print($0) }.store(in: &bag)
/// taps.send("hello")
/// ```
// NB: @unchecked Sendable: all state is in a thread-safe core; sends from any thread are safe.
public final class PassthroughSubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    @usableFromInline let core = SubjectCore<Output, Failure>(value: nil)

    /// Creates a subject with no subscribers.
    // NB: inlinable, so creating a subject runs specialized code: unspecialized, the core's allocation looks up
    // its generic metadata each time (a program that makes a subject per request pays it every time).
    @inlinable
    public init() {}

    /// Sends a value to every subscriber that has demand.
    @inlinable
    public func send(_ input: Output) { core.send(input, store: false) }

    /// Sends a completion to every subscriber; later sends are ignored.
    public func send(completion: Subscribers.Completion<Failure>) { core.send(completion: completion) }

    /// Takes an upstream subscription and requests unlimited values from it.
    public func send(subscription: any Subscription) { core.send(subscription: subscription) }

    /// Attaches a subscriber.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.receive(subscriber: subscriber, subject: self, deliversCurrentValue: false)
    }

    /// Attaches closures as a subscriber with unlimited demand (the same behaviour as `Publisher.sink`, without
    /// an intermediate `Sink` object).
    ///
    /// ```swift
    /// subject.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) }).store(in: &bag)
    /// ```
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        core.sink(deliversCurrentValue: false, receiveCompletion: receiveCompletion, receiveValue: receiveValue)
    }
}

extension PassthroughSubject where Failure == Never {
    /// Attaches a closure as a subscriber with unlimited demand.
    ///
    /// ```swift
    /// taps.sink { print($0) }.store(in: &bag)
    /// ```
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        core.sink(deliversCurrentValue: false, receiveCompletion: nil, receiveValue: receiveValue)
    }
}
