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
final class ReduceInner<Input, UpstreamFailure: Error, Downstream: Subscriber>:
    Relay<Input, UpstreamFailure, Downstream>, @unchecked Sendable
{
    private let accumulate: (Input) -> Accumulate<Downstream.Failure>
    private let result: () -> Downstream.Input?
    private let mapFailure: (UpstreamFailure) -> Downstream.Failure
    private let state = Mutex(ReduceState<Downstream.Input>())

    init(
        downstream: Downstream, mapFailure: @escaping (UpstreamFailure) -> Downstream.Failure,
        accumulate: @escaping (Input) -> Accumulate<Downstream.Failure>, result: @escaping () -> Downstream.Input?,
        name: String
    ) {
        self.accumulate = accumulate
        self.result = result
        self.mapFailure = mapFailure
        super.init(downstream: downstream, name: name)
    }

    override func receive(subscription: any Subscription) {
        super.receive(subscription: subscription)
        subscription.request(.unlimited)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        guard !isTerminal else { return .none }
        switch accumulate(input) {
        case .more:
            break
        case .done:
            if cancelUpstream() { publishResult() }
        case .fail(let error):
            if cancelUpstream() { downstream.receive(completion: .failure(error)) }
        }
        return .none
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard markCompleted() else { return }
        switch completion {
        case .finished: publishResult()
        case .failure(let error): downstream.receive(completion: .failure(mapFailure(error)))
        }
    }

    private func publishResult() {
        guard let value = result() else { return downstream.receive(completion: .finished) }
        let now = state.withLock { state -> Bool in
            guard state.demand > 0 else {
                state.pending = value
                return false
            }
            state.delivered = true
            return true
        }
        if now { deliver(value) }
    }

    private func deliver(_ value: Downstream.Input) {
        _ = downstream.receive(value)
        downstream.receive(completion: .finished)
    }

    override func request(_ demand: Subscribers.Demand) {
        let value = state.withLock { state -> Downstream.Input? in
            state.demand += demand
            guard !state.delivered, let pending = state.pending else { return nil }
            state.delivered = true
            state.pending = nil
            return pending
        }
        if let value { deliver(value) }
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct ReduceState<Value>: @unchecked Sendable {
    var demand = Subscribers.Demand.none
    var pending: Value?
    var delivered = false
}

extension Publisher {
    /// Subscribes `subscriber` through a `ReduceInner` whose failure is the upstream's.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, accumulate: @escaping (Output) -> Accumulate<Failure>,
        result: @escaping () -> S.Input?
    ) where S.Failure == Failure {
        receive(
            subscriber: ReduceInner<Output, Failure, S>(
                downstream: subscriber, mapFailure: { $0 }, accumulate: accumulate, result: result, name: name)
        )
    }

    /// Subscribes `subscriber` through a `ReduceInner` that may fail with any error.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, tryAccumulate: @escaping (Output) -> Accumulate<any Error>,
        result: @escaping () -> S.Input?
    ) where S.Failure == any Error {
        receive(
            subscriber: ReduceInner<Output, Failure, S>(
                downstream: subscriber, mapFailure: { $0 }, accumulate: tryAccumulate, result: result, name: name
            )
        )
    }
}
