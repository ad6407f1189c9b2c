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
        let conduit = FutureSubscription(downstream: subscriber, parent: self)
        let result = state.withLock { state -> Result<Output, Failure>? in
            if state.result == nil { state.waiting.append(conduit) }
            return state.result
        }
        subscriber.receive(subscription: conduit)
        if let result { conduit.resolve(result) }
    }

    /// Forgets a cancelled subscriber's conduit, so nothing keeps it (and its subscriber) alive.
    fileprivate func forget(_ conduit: FutureConduit<Output, Failure>) {
        state.withLock { $0.waiting.removeAll { $0 === conduit } }
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

    init(downstream: Downstream, parent: Future<Downstream.Input, Downstream.Failure>) {
        state = Mutex(FutureSubscriptionState(downstream: downstream, parent: parent))
    }

    /// Combine's mirror: the future (until the result has gone downstream or the subscription was cancelled),
    /// the downstream, whether it has asked for the value, and the future again as `subject`.
    var customMirror: Mirror {
        let (parent, downstream, requested) = state.withLock { ($0.parent, $0.downstream, $0.requested) }
        return Mirror(
            self,
            children: [
                "parent": parent as Any, "downstream": downstream as Any, "hasAnyDemand": requested,
                "subject": parent as Any,
            ])
    }

    /// The future's result: delivered now if requested, and then the future is let go of (as in Combine, where
    /// a result delivered later, on request, leaves the subscription still naming its future).
    override func resolve(_ result: Result<Downstream.Input, Downstream.Failure>) {
        let ready = state.withLock { state in
            state.result = result
            return state.takeIfReady()
        }
        guard ready != nil else { return }
        deliver(ready)
        state.withLock { $0.parent = nil }
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
        let parent = state.withLock { state -> Future<Downstream.Input, Downstream.Failure>? in
            defer {
                state.downstream = nil
                state.parent = nil
            }
            return state.parent
        }
        parent?.forget(self)
    }

    private func deliver(_ ready: (Downstream, Result<Downstream.Input, Downstream.Failure>)?) {
        guard let (downstream, result) = ready else { return }
        downstream.receive(result: result)
    }
}

// NB: @unchecked Sendable: it only lives inside its subscription's Mutex.
private struct FutureSubscriptionState<Downstream: Subscriber>: @unchecked Sendable {
    var downstream: Downstream?
    /// The future, until the result has gone downstream or the subscription is cancelled.
    var parent: Future<Downstream.Input, Downstream.Failure>?
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
