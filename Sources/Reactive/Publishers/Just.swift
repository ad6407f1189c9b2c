public import Synchronization

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
    @inlinable
    public init(_ output: Output) { self.output = output }

    /// Attaches a subscriber, which receives the output on its first request.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        let output = output
        subscriber.receive(
            subscription: OneShotSubscription(shown: output) { subscriber.receive(result: .success(output)) })
    }
}

extension Just: Equatable where Output: Equatable {}
extension Just: Sendable where Output: Sendable {}

/// Runs one delivery (made where the subscriber's type is known) on the first request with demand, or drops
/// it on cancel. Non-generic, so requests arriving through `any Subscription` never look up generic metadata.
// NB: @unchecked Sendable: the delivery closure is taken out of the Mutex exactly once.
@usableFromInline
final class OneShotSubscription: Subscription, CombineDescribed, @unchecked Sendable {
    /// Combine's name for the publisher ("Just", "Once", "Optional").
    @usableFromInline let combineName: String
    @usableFromInline let delivery: Mutex<OneShotDelivery>
    /// The output, the one child of Combine's mirror.
    @usableFromInline let shown: Any

    @inlinable
    init(_ combineName: String = "Just", shown: Any, _ deliver: @escaping () -> Void) {
        self.combineName = combineName
        self.shown = shown
        delivery = Mutex(OneShotDelivery(run: deliver))
    }

    /// The output as the one unlabelled child, as Combine's.
    @usableFromInline var customMirror: Mirror { Mirror(self, unlabeledChildren: [shown]) }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        delivery.withLock { $0.take() }?()
    }

    @usableFromInline
    func cancel() {
        _ = delivery.withLock { $0.take() }
    }
}

/// The pending delivery of a `OneShotSubscription`.
// NB: @unchecked Sendable: it only lives inside its subscription's Mutex and is taken out once.
@usableFromInline
struct OneShotDelivery: @unchecked Sendable {
    @usableFromInline var run: (() -> Void)?

    @inlinable
    init(run: @escaping () -> Void) { self.run = run }

    mutating func take() -> (() -> Void)? {
        defer { run = nil }
        return run
    }
}
