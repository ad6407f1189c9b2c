/// What an element operator does with one upstream element.
enum Step<Output, Failure: Error> {
    /// Send this element downstream.
    case emit(Output)
    /// Drop the element and ask the upstream for one more, so the downstream's demand stays whole.
    case drop
    /// Send this element, then cancel the upstream and finish.
    case emitAndFinish(Output)
    /// Cancel the upstream and finish without sending anything.
    case finish
    /// Cancel the upstream and fail.
    case fail(Failure)
}

extension Step where Failure == any Error {
    /// Runs a throwing step body, turning a thrown error into `.fail`.
    static func catching(_ body: () throws -> Step) -> Step {
        do { return try body() } catch { return .fail(error) }
    }
}

/// The inner subscriber of the element operators (`tryMap`, `tryFilter`, `dropFirst`, `prefix`, `first(where:)`,
/// `decode`, ...): it passes the upstream subscription straight through, asks `step` what to do with each
/// element, and ends the stream early (cancelling the upstream) when the step says so. The `step` closure is
/// made per subscription, so it may keep state (counters, flags).
final class StepInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, CombineDescribed {
    typealias Failure = UpstreamFailure

    /// Combine's name for the operator ("DropWhile", "TryMap").
    let combineName: String
    private let downstream: Downstream
    private let step: (Input) -> Step<Downstream.Input, Downstream.Failure>
    private let mapFailure: (UpstreamFailure) -> Downstream.Failure
    // NB: touched only inside `receive` calls, which Combine serializes, so no lock.
    private var upstream: (any Subscription)?
    private var done = false

    init(
        name: String, downstream: Downstream, mapFailure: @escaping (UpstreamFailure) -> Downstream.Failure,
        step: @escaping (Input) -> Step<Downstream.Input, Downstream.Failure>
    ) {
        combineName = name
        self.downstream = downstream
        self.mapFailure = mapFailure
        self.step = step
    }

    func receive(subscription: any Subscription) {
        upstream = subscription
        downstream.receive(subscription: NamedSubscription(combineName, subscription))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard !done else { return .none }
        switch step(input) {
        case .emit(let output):
            return downstream.receive(output)
        case .drop:
            return .max(1)
        case .emitAndFinish(let output):
            end()
            _ = downstream.receive(output)
            downstream.receive(completion: .finished)
        case .finish:
            end()
            downstream.receive(completion: .finished)
        case .fail(let error):
            end()
            downstream.receive(completion: .failure(error))
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard !done else { return }
        done = true
        upstream = nil
        downstream.receive(completion: completion.mapFailure(mapFailure))
    }

    private func end() {
        done = true
        let subscription = upstream
        upstream = nil
        subscription?.cancel()
    }
}

extension Publisher {
    /// Subscribes `subscriber` through a `StepInner` whose failure is the upstream's.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, step: @escaping (Output) -> Step<S.Input, Failure>
    ) where S.Failure == Failure {
        receive(
            subscriber: StepInner<Output, Failure, S>(
                name: name, downstream: subscriber, mapFailure: { $0 }, step: step))
    }

    /// Subscribes `subscriber` through a `StepInner` that may fail with any error.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, tryStep: @escaping (Output) -> Step<S.Input, any Error>
    ) where S.Failure == any Error {
        receive(
            subscriber: StepInner<Output, Failure, S>(
                name: name, downstream: subscriber, mapFailure: { $0 }, step: tryStep))
    }
}
