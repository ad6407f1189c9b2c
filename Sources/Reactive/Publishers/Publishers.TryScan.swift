import Synchronization

extension Publishers {
    /// A publisher that transforms elements from the upstream publisher by providing the current element to a failable closure along with the last value returned by the closure.
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The previous result returned by the nextPartialResult closure.
        public let initialResult: Output
        /// An error-throwing closure that takes as its arguments the previous value returned by the closure and the next element emitted from the upstream publisher.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates the publisher.
        public init(
            upstream: Upstream, initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TryScanInner(downstream: subscriber, initialResult: initialResult, next: nextPartialResult))
        }
    }
}

extension Publisher {
    /// Transforms elements from the upstream publisher with an error-throwing accumulating closure.
    ///
    /// ```swift
    /// amounts.tryScan(0) { total, next in guard next >= 0 else { throw Negative() }; return total + next }
    /// ```
    public func tryScan<T>(
        _ initialResult: T, _ nextPartialResult: @escaping (T, Output) throws -> T
    ) -> Publishers.TryScan<Self, T> {
        Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}

/// The subscriber of `tryScan` ("TryScan"), as Combine's: every value that comes is folded in and passed on,
/// even after the end; the end (a completion while subscribed, a thrown error, a cancel) only stops further
/// completions. A thrown error cancels the upstream and fails the downstream once; a cancel before the
/// subscription does nothing, and a completion before it is dropped.
// NB: @unchecked Sendable: the status and the result are Mutex-guarded; the closure and the downstream are
// called outside the lock.
private final class TryScanInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Failure == any Error {
    typealias Output = Downstream.Input
    typealias Failure = UpstreamFailure

    private let downstream: Downstream
    private let next: (Output, Input) throws -> Output
    private let state: Mutex<TryScanState<Output>>

    init(downstream: Downstream, initialResult: Output, next: @escaping (Output, Input) throws -> Output) {
        self.downstream = downstream
        self.next = next
        state = Mutex(TryScanState(result: initialResult))
    }

    var description: String { "TryScan" }
    var playgroundDescription: Any { description }
    var customMirror: Mirror {
        let (status, result) = state.withLock { ($0.status, $0.result) }
        return Mirror(self, children: ["downstream": downstream, "status": status, "result": result])
    }

    func receive(subscription: any Subscription) {
        guard state.withLock({ $0.status.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let result = state.withLock { $0.result }
        do {
            let folded = try next(result, input)
            state.withLock { $0.result = folded }
            return downstream.receive(folded)
        } catch {
            let (live, upstream) = state.withLock { state -> (Bool, (any Subscription)?) in
                if case .terminal = state.status { return (false, nil) }
                return (true, state.status.terminate())
            }
            upstream?.cancel()
            if live { downstream.receive(completion: .failure(error)) }
            return .none
        }
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let live = state.withLock { state -> Bool in
            guard state.status.subscription != nil else { return false }
            state.status = .terminal
            return true
        }
        guard live else { return }
        switch completion {
        case .finished: downstream.receive(completion: .finished)
        case .failure(let error): downstream.receive(completion: .failure(error))
        }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.status.subscription }?.request(demand)
    }

    func cancel() {
        state.withLock { state -> (any Subscription)? in
            guard let upstream = state.status.subscription else { return nil }
            state.status = .terminal
            return upstream
        }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct TryScanState<Output>: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    var result: Output
}
