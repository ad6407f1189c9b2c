import Synchronization

/// A publisher that eventually produces a single value and then finishes or fails.
///
/// ```swift
/// let future = Future<Int, Never> { promise in promise(.success(42)) }
/// future.sink { print($0) }
/// ```
// NB: @unchecked Sendable: all state is behind one Mutex; the promise may be fulfilled from any thread.
public final class Future<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// A type that represents a closure to invoke in the future, when an element or error is available.
    public typealias Promise = (Result<Output, Failure>) -> Void

    private let state = Mutex(FutureState<Output, Failure>())

    /// Creates a publisher that invokes a promise closure when the publisher emits an element.
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        attemptToFulfill { [self] result in fulfill(result) }
    }

    private func fulfill(_ result: Result<Output, Failure>) {
        let waiting = state.withLock { state -> [FutureConduit<Output, Failure>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for conduit in waiting { conduit.resolve(result) }
    }

    /// Attaches a subscriber, which receives the result once it exists and is requested.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = FutureSubscription(downstream: subscriber)
        let result = state.withLock { state -> Result<Output, Failure>? in
            if state.result == nil { state.waiting.append(conduit) }
            return state.result
        }
        subscriber.receive(subscription: conduit)
        if let result { conduit.resolve(result) }
    }
}

// NB: @unchecked Sendable: it only lives inside its future's Mutex.
private struct FutureState<Output, Failure: Error>: @unchecked Sendable {
    var result: Result<Output, Failure>?
    var waiting: [FutureConduit<Output, Failure>] = []
}

/// A future's view of one subscriber.
// NB: @unchecked Sendable: subclasses keep their state behind a Mutex.
class FutureConduit<Output, Failure: Error>: @unchecked Sendable {
    func resolve(_ result: Result<Output, Failure>) {}
}

/// Delivers the future's result once it is both known and requested.
private final class FutureSubscription<Downstream: Subscriber>: FutureConduit<Downstream.Input, Downstream.Failure>,
    Subscription, CombineDescribed, @unchecked Sendable
{
    var combineName: String { "Future" }
    private let state: Mutex<FutureSubscriptionState<Downstream>>

    init(downstream: Downstream) {
        state = Mutex(FutureSubscriptionState(downstream: downstream))
    }

    override func resolve(_ result: Result<Downstream.Input, Downstream.Failure>) {
        deliver(
            state.withLock { state in
                state.result = result
                return state.takeIfReady()
            })
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        deliver(
            state.withLock { state in
                state.requested = true
                return state.takeIfReady()
            })
    }

    func cancel() {
        state.withLock { $0.downstream = nil }
    }

    private func deliver(_ ready: (Downstream, Result<Downstream.Input, Downstream.Failure>)?) {
        guard let (downstream, result) = ready else { return }
        downstream.receive(result: result)
    }
}

// NB: @unchecked Sendable: it only lives inside its subscription's Mutex.
private struct FutureSubscriptionState<Downstream: Subscriber>: @unchecked Sendable {
    var downstream: Downstream?
    var result: Result<Downstream.Input, Downstream.Failure>?
    var requested = false

    /// Takes the downstream out once the result is known and has been requested.
    mutating func takeIfReady() -> (Downstream, Result<Downstream.Input, Downstream.Failure>)? {
        // A failure needs no demand (Combine fails a subscriber at once); a value waits for a request.
        guard let result, let downstream else { return nil }
        if case .success = result, !requested { return nil }
        self.downstream = nil
        return (downstream, result)
    }
}
