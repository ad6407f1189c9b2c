import Synchronization

/// The inner object of `receive(on:)` and `delay`: every event is queued and a `hop` (a scheduler call) is
/// made for it; each hop that runs releases the oldest queued event. Delivery is serialized and in order even
/// on a concurrent scheduler (a value never overtakes another, nor the completion). Demand the downstream
/// returns there goes back upstream; nothing is delivered after the downstream cancels. Undescribed, as
/// Combine's `delay`; `receive(on:)` names it.
class HopInner<Input, UpstreamFailure: Error, Downstream: Subscriber>:
    UndescribedRelay<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == UpstreamFailure {
    private let hop: (@escaping () -> Void) -> Void
    private let state = Mutex(HopState<Input, UpstreamFailure>())

    init(downstream: Downstream, hop: @escaping (@escaping () -> Void) -> Void) {
        self.hop = hop
        super.init(downstream: downstream)
    }

    /// Keeps the upstream's subscription beyond its completion: the demand a value returns when it is delivered
    /// later still goes to it, as in Combine.
    override func receive(subscription: any Subscription) {
        state.withLock { state in
            if state.upstream == nil, !state.cancelled { state.upstream = subscription }
        }
        super.receive(subscription: subscription)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        guard isLive else { return .none }
        state.withLock { $0.events.append(.value(input)) }
        hop { [self] in release() }
        return .none
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard markCompleted() else { return }
        state.withLock { $0.events.append(.completion(completion)) }
        hop { [self] in release() }
    }

    /// One hop ran: one more event may go; deliver every released event unless another thread already is.
    private func release() {
        let claimed = state.withLock { state -> Bool in
            state.released += 1
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard claimed else { return }
        while true {
            let next = state.withLock { state -> HopEvent<Input, UpstreamFailure>? in
                guard state.released > 0, !state.events.isEmpty else {
                    state.delivering = false
                    return nil
                }
                state.released -= 1
                return state.events.removeFirst()
            }
            switch next {
            case nil:
                return
            case .skipped:
                continue
            case .value(let value):
                let more = downstream.receive(value)
                if more > 0 { state.withLock { $0.upstream }?.request(more) }
            case .completion(let completion):
                downstream.receive(completion: completion)
            }
        }
    }

    /// Values on their way are dropped; a completion already on its way still arrives, at its time, as in
    /// Combine (each dropped value keeps its place, so what follows is not released early).
    override func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.upstream = nil
            state.events = state.events.map { if case .completion = $0 { $0 } else { .skipped } }
        }
        super.cancel()
    }
}

private enum HopEvent<Input, Failure: Error> {
    case value(Input)
    case completion(Subscribers.Completion<Failure>)
    /// A value dropped by a cancel, whose hop still comes.
    case skipped
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct HopState<Input, Failure: Error>: @unchecked Sendable {
    var events: [HopEvent<Input, Failure>] = []
    var released = 0
    var delivering = false
    var cancelled = false
    /// The upstream's subscription, until cancel.
    var upstream: (any Subscription)?
}
