import Synchronization

/// The inner object of `receive(on:)` and `delay`: every event is handed to `hop` (a scheduler call) and
/// delivered from there; demand the downstream returns there goes back upstream. Nothing is delivered after
/// the downstream cancels.
final class HopInner<Input, UpstreamFailure: Error, Downstream: Subscriber>:
    Relay<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == UpstreamFailure {
    private let hop: (@escaping () -> Void) -> Void
    private let cancelled = Atomic<Bool>(false)

    init(downstream: Downstream, hop: @escaping (@escaping () -> Void) -> Void) {
        self.hop = hop
        super.init(downstream: downstream)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        hop { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            let more = downstream.receive(input)
            if more > 0 { request(more) }
        }
        return .none
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard markCompleted() else { return }
        hop { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            downstream.receive(completion: completion)
        }
    }

    override func cancel() {
        cancelled.store(true, ordering: .releasing)
        super.cancel()
    }
}
