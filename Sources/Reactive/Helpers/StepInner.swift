import Synchronization

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

/// How an element operator's inner object treats a misbehaving upstream or downstream, as Combine's do.
enum StepStrictness {
    /// `tryFilter`, `prefix(while:)`, `tryCompactMap`, `tryRemoveDuplicates`: a value, completion or request
    /// before the subscription traps, and a cancel before it cancels the subscription when it comes.
    case strict
    /// `measureInterval`: a value before the subscription is taken as any
    /// other, a completion or cancel before it is ignored, a request before it does nothing.
    case tolerant
    /// `scan`, `map(keyPath)`: no subscription of its own; the upstream's goes straight downstream.
    case passThrough
    /// `encode`, `decode`: as `tolerant`, except that a completion before the subscription is passed on.
    case tolerantPassingEarlyCompletion
    /// `drop(while:)`, `tryDrop(while:)`: as `tolerant`, except that a value before the subscription is dropped
    /// unseen (the predicate is not asked).
    case tolerantIgnoringEarlyValues
}

/// The inner object of the element operators (`tryMap`, `tryFilter`, `dropFirst`, `prefix`, `first(where:)`,
/// `decode`, ...): it is the downstream's subscription (unless `.passThrough`), asks `step` what to do with
/// each element, and ends the stream early (cancelling the upstream) when the step says so. The `step`
/// closure is made per subscription, so it may keep state (counters, flags).
final class StepInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
{
    // NB: @unchecked Sendable: the status is Mutex-guarded; `step` runs only inside `receive` calls, which
    // Combine serializes.
    typealias Failure = UpstreamFailure

    /// Combine's name for the operator ("DropWhile", "TryMap").
    let combineName: String
    private let downstream: Downstream
    private let strictness: StepStrictness
    private let step: (Input) -> Step<Downstream.Input, Downstream.Failure>
    private let mapFailure: (UpstreamFailure) -> Downstream.Failure
    private let status = Mutex(SubscriptionStatus.awaiting)
    /// The operator's own mirror children, given the status, where Combine's inner object lists its fields.
    private let mirrorChildren: ((SubscriptionStatus) -> [Mirror.Child])?

    init(
        name: String, downstream: Downstream, strictness: StepStrictness,
        mapFailure: @escaping (UpstreamFailure) -> Downstream.Failure,
        mirror: ((SubscriptionStatus) -> [Mirror.Child])? = nil,
        step: @escaping (Input) -> Step<Downstream.Input, Downstream.Failure>
    ) {
        combineName = name
        self.downstream = downstream
        self.strictness = strictness
        self.mapFailure = mapFailure
        mirrorChildren = mirror
        self.step = step
    }

    /// The operator's own children if it has any, else the downstream for the strict operators and nothing for
    /// the others, as Combine's children.
    var customMirror: Mirror {
        if let mirrorChildren { return Mirror(self, children: mirrorChildren(status.withLock { $0 })) }
        return Mirror(self, children: strictness == .strict ? ["downstream": downstream] : [:])
    }

    func receive(subscription: any Subscription) {
        let accepted = status.withLock { $0.accept(subscription) }
        guard accepted else { return subscription.cancel() }
        downstream.receive(subscription: strictness == .passThrough ? subscription : self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        // NB: as Combine's pass-through operators, no state: what comes after a completion goes on too.
        if strictness == .passThrough { return receive(step: input) }
        switch status.withLock({ $0 }) {
        case .terminal: return .none
        case .awaiting where strictness == .strict: fatalError("A value arrived before the subscription")
        case .awaiting where strictness == .tolerantIgnoringEarlyValues: return .none
        case .awaiting, .subscribed: break
        }
        return receive(step: input)
    }

    private func receive(step input: Input) -> Subscribers.Demand {
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
        if strictness != .passThrough {
            let live = status.withLock { status -> Bool in
                switch status {
                case .terminal: return false
                case .awaiting where strictness == .strict:
                    fatalError("A completion arrived before the subscription")
                case .awaiting where strictness == .tolerantPassingEarlyCompletion:
                    status = .terminal
                    return true
                case .awaiting: return false
                case .subscribed:
                    status = .terminal
                    return true
                }
            }
            guard live else { return }
        }
        downstream.receive(completion: completion.mapFailure(mapFailure))
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let upstream = status.withLock { status -> (any Subscription)? in
            if case .awaiting = status, strictness == .strict {
                fatalError("A request arrived before the subscription")
            }
            return status.subscription
        }
        upstream?.request(demand)
    }

    func cancel() {
        let upstream = status.withLock { status -> (any Subscription)? in
            switch status {
            case .awaiting where strictness != .strict: return nil
            default: return status.terminate()
            }
        }
        upstream?.cancel()
    }

    private func end() {
        status.withLock { $0.terminate() }?.cancel()
    }
}

extension Publisher {
    /// Subscribes `subscriber` through a `StepInner` whose failure is the upstream's.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, strictness: StepStrictness = .tolerant,
        mirror: ((SubscriptionStatus) -> [Mirror.Child])? = nil, step: @escaping (Output) -> Step<S.Input, Failure>
    ) where S.Failure == Failure {
        receive(
            subscriber: StepInner<Output, Failure, S>(
                name: name, downstream: subscriber, strictness: strictness, mapFailure: { $0 }, mirror: mirror,
                step: step))
    }

    /// Subscribes `subscriber` through a `StepInner` that may fail with any error.
    func subscribe<S: Subscriber>(
        _ subscriber: S, name: String, strictness: StepStrictness = .tolerant,
        mirror: ((SubscriptionStatus) -> [Mirror.Child])? = nil,
        tryStep: @escaping (Output) -> Step<S.Input, any Error>
    ) where S.Failure == any Error {
        receive(
            subscriber: StepInner<Output, Failure, S>(
                name: name, downstream: subscriber, strictness: strictness, mapFailure: { $0 }, mirror: mirror,
                step: tryStep))
    }
}
