import Reactive
import Synchronization

/// One event a tracking subscriber saw, so whole histories compare with `==`.
enum Event<Value: Equatable>: Equatable, CustomStringConvertible {
    case subscription
    case value(Value)
    case finished
    case failure(String)

    var description: String {
        switch self {
        case .subscription: "subscription"
        case .value(let value): "value(\(value))"
        case .finished: "finished"
        case .failure(let message): "failure(\(message))"
        }
    }
}

/// A subscriber that records every event, requests `initialDemand` on subscription and returns
/// `demandPerValue` for each value; its subscription can be used to request more or cancel.
final class TrackingSubscriber<Value: Equatable, Failure: Error>: Subscriber, @unchecked Sendable {
    typealias Input = Value

    private let state = Mutex<TrackingState<Value>>(TrackingState())
    private let initialDemand: Subscribers.Demand
    private let demandPerValue: Subscribers.Demand
    private let onValue: ((Value) -> Void)?

    init(
        initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none,
        onValue: ((Value) -> Void)? = nil
    ) {
        self.initialDemand = initialDemand
        self.demandPerValue = demandPerValue
        self.onValue = onValue
    }

    var events: [Event<Value>] { state.withLock { $0.events } }
    var values: [Value] { state.withLock { $0.events.compactMap { if case .value(let v) = $0 { v } else { nil } } } }
    var subscription: (any Subscription)? { state.withLock { $0.subscription.value } }

    func receive(subscription: any Subscription) {
        state.withLock { state in
            state.events.append(.subscription)
            state.subscription = UncheckedBox(value: subscription)
        }
        if initialDemand > 0 { subscription.request(initialDemand) }
    }

    func receive(_ input: Value) -> Subscribers.Demand {
        state.withLock { $0.events.append(.value(input)) }
        onValue?(input)
        return demandPerValue
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        state.withLock { state in
            switch completion {
            case .finished: state.events.append(.finished)
            case .failure(let error): state.events.append(.failure("\(error)"))
            }
        }
    }

    func request(_ demand: Subscribers.Demand) { subscription?.request(demand) }
    func cancel() { subscription?.cancel() }
}

struct UncheckedBox<T>: @unchecked Sendable {
    var value: T?
}

struct TrackingState<Value: Equatable>: @unchecked Sendable {
    var events: [Event<Value>] = []
    var subscription = UncheckedBox<any Subscription>(value: nil)
}

/// A small error for failure paths.
struct TestError: Error, Equatable, CustomStringConvertible {
    var code = 1
    var description: String { "TestError(\(code))" }
}

extension Publisher where Output: Equatable {
    /// Subscribes a fresh tracking subscriber and returns it.
    func track(
        initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none
    ) -> TrackingSubscriber<Output, Failure> {
        let tracker = TrackingSubscriber<Output, Failure>(initialDemand: initialDemand, demandPerValue: demandPerValue)
        subscribe(tracker)
        return tracker
    }
}
