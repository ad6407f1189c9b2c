import Synchronization

/// What a reducing operator does after taking in one element.
enum Accumulate<Failure: Error> {
    /// Keep going.
    case more
    /// The result is known: cancel the upstream and publish it.
    case done
    /// Cancel the upstream and fail.
    case fail(Failure)
}

extension Accumulate where Failure == any Error {
    /// Runs a throwing accumulation body, turning a thrown error into `.fail`.
    static func catching(_ body: () throws -> Accumulate) -> Accumulate {
        do { return try body() } catch { return .fail(error) }
    }
}

/// The inner object of the reducing operators (`reduce`, `collect()`, `count`, `last`, `contains`, `min`, ...):
/// it requests everything from the upstream, feeds `accumulate`, and publishes `result()` (if any) once the
/// upstream finishes or `accumulate` says the answer is known; the result waits for downstream demand.
///
/// As Combine's: a value or completion before the subscription is ignored, a second subscription is cancelled,
/// a cancel before the subscription is ignored (the subscription still gets its request), a request before it
/// is remembered, a request of zero traps.
final class ReduceInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
{
    // NB: @unchecked Sendable: the state is Mutex-guarded; `accumulate` runs only inside `receive` calls, which
    // Combine serializes, and `result()` is read only once the upstream is done.
    typealias Failure = UpstreamFailure

    let combineName: String
    private let downstream: Downstream
    private let accumulate: (Input) -> Accumulate<Downstream.Failure>
    private let result: () -> Downstream.Input?
    private let initial: Any?
    private let mapFailure: (UpstreamFailure) -> Downstream.Failure
    private let state = Mutex(ReduceState())
    /// The operator's own mirror children, where Combine's inner object lists other fields (`collect()`: the count).
    private let mirrorChildren: (() -> [Mirror.Child])?

    init(
        downstream: Downstream, mapFailure: @escaping (UpstreamFailure) -> Downstream.Failure,
        accumulate: @escaping (Input) -> Accumulate<Downstream.Failure>, result: @escaping () -> Downstream.Input?,
        initial: Any?, name: String, mirror: (() -> [Mirror.Child])? = nil
    ) {
        self.downstream = downstream
        self.accumulate = accumulate
        self.result = result
        self.initial = initial
        self.mapFailure = mapFailure
        combineName = name
        mirrorChildren = mirror
    }

    /// Combine's children: the downstream, the result so far, the initial result and the status (or the
    /// operator's own).
    var customMirror: Mirror {
        if let mirrorChildren { return Mirror(self, children: mirrorChildren()) }
        let status = state.withLock { $0.status }
        let children: [Mirror.Child] = [
            ("downstream", downstream), ("result", result() as Any), ("initial", initial as Any), ("status", status),
        ]
        return Mirror(self, children: children)
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { $0.status.accept(subscription) }
        guard accepted else { return subscription.cancel() }
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard let upstream = state.withLock({ $0.status.subscription }) else { return .none }
        switch accumulate(input) {
        case .more:
            break
        case .done:
            let publish = state.withLock { state -> Bool in
                state.status = .terminal
                return state.upstreamDone()
            }
            upstream.cancel()
            if publish { publishResult() }
        case .fail(let error):
            state.withLock { state in
                state.status = .terminal
                state.finished = true
                state.delivered = true
            }
            upstream.cancel()
            downstream.receive(completion: .failure(error))
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        let publish = state.withLock { state -> Bool? in
            guard case .subscribed = state.status else { return nil }
            state.status = .terminal
            if case .failure = completion {
                state.finished = true
                state.delivered = true
                return false
            }
            return state.upstreamDone()
        }
        switch (completion, publish) {
        case (_, nil): return
        case (.failure(let error), _): downstream.receive(completion: .failure(mapFailure(error)))
        case (.finished, true?): publishResult()
        case (.finished, false?): return
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let publish = state.withLock { state -> Bool in
            guard !state.requested, !state.cancelled, !state.delivered else { return false }
            state.requested = true
            guard state.finished else { return false }
            state.delivered = true
            return true
        }
        if publish { publishResult() }
    }

    func cancel() {
        let upstream = state.withLock { state -> (any Subscription)? in
            guard case .subscribed(let upstream) = state.status else { return nil }
            state.cancelled = true
            state.status = .terminal
            return upstream
        }
        upstream?.cancel()
    }

    private func publishResult() {
        if let value = result() { _ = downstream.receive(value) }
        downstream.receive(completion: .finished)
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct ReduceState: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    /// The downstream has asked for something (any amount: the result is one element).
    var requested = false
    var cancelled = false
    /// The upstream is done (finished, or the answer is known).
    var finished = false
    /// The result or a failure has gone (or is going) downstream.
    var delivered = false

    /// Records that the upstream is done; true if the result should go out now.
    mutating func upstreamDone() -> Bool {
        finished = true
        guard requested, !delivered else { return false }
        delivered = true
        return true
    }
}

extension Publisher {
    /// Subscribes `subscriber` through a `ReduceInner` whose failure is the upstream's.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, accumulate: @escaping (Output) -> Accumulate<Failure>,
        result: @escaping () -> S.Input?, initial: Any? = nil, mirror: (() -> [Mirror.Child])? = nil
    ) where S.Failure == Failure {
        receive(
            subscriber: ReduceInner<Output, Failure, S>(
                downstream: subscriber, mapFailure: { $0 }, accumulate: accumulate, result: result, initial: initial,
                name: name, mirror: mirror)
        )
    }

    /// Subscribes `subscriber` through a `ReduceInner` that may fail with any error.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, tryAccumulate: @escaping (Output) -> Accumulate<any Error>,
        result: @escaping () -> S.Input?, initial: Any? = nil
    ) where S.Failure == any Error {
        receive(
            subscriber: ReduceInner<Output, Failure, S>(
                downstream: subscriber, mapFailure: { $0 }, accumulate: tryAccumulate, result: result, initial: initial,
                name: name
            )
        )
    }
}
