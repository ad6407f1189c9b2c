import Synchronization

/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// ```swift
/// Just(42).sink { print($0) }   // 42
/// ```
public struct Just<Output>: Publisher {
    /// Just never fails.
    public typealias Failure = Never

    /// The one element that the publisher emits.
    public let output: Output

    /// Initializes a publisher that emits the specified output just once.
    public init(_ output: Output) { self.output = output }

    /// Attaches a subscriber, which receives the output on its first request.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(subscription: OneShotSubscription(downstream: subscriber, result: .success(output)))
    }
}

extension Just: Equatable where Output: Equatable {}
extension Just: Sendable where Output: Sendable {}

/// Delivers one result (a value then `.finished`, or a failure) once there is demand.
// NB: @unchecked Sendable: the downstream is taken out of the Mutex exactly once.
final class OneShotSubscription<Downstream: Subscriber>: Subscription, @unchecked Sendable {
    private let state: Mutex<OneShotState<Downstream>>

    /// `result` is `.success(value)` for value-then-finish, or `.failure` to fail right away on request.
    init(downstream: Downstream, result: Result<Downstream.Input, Downstream.Failure>) {
        state = Mutex(OneShotState(downstream: downstream, result: result))
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        guard let (downstream, result) = state.withLock({ $0.take() }) else { return }
        downstream.receive(result: result)
    }

    func cancel() {
        _ = state.withLock { $0.take() }
    }
}

// NB: @unchecked Sendable: it only lives inside its subscription's Mutex.
private struct OneShotState<Downstream: Subscriber>: @unchecked Sendable {
    var downstream: Downstream?
    var result: Result<Downstream.Input, Downstream.Failure>?

    mutating func take() -> (Downstream, Result<Downstream.Input, Downstream.Failure>)? {
        guard let downstream, let result else { return nil }
        self.downstream = nil
        self.result = nil
        return (downstream, result)
    }
}
