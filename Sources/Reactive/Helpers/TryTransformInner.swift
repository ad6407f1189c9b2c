/// The inner subscriber of the throwing element operators (`tryMap`, `tryCompactMap`, `tryFilter`,
/// `decode`, `encode`): a nil result drops the element (asking upstream for one more); a thrown error
/// cancels the upstream and fails downstream with it.
final class TryTransformInner<Input, UpstreamFailure: Error, Downstream: Subscriber>: Subscriber
where Downstream.Failure == any Error {
    typealias Failure = UpstreamFailure

    private let downstream: Downstream
    private let transform: (Input) throws -> Downstream.Input?
    // NB: touched only inside `receive` calls, which Combine serializes, so no lock.
    private var upstream: (any Subscription)?
    private var done = false

    init(downstream: Downstream, transform: @escaping (Input) throws -> Downstream.Input?) {
        self.downstream = downstream
        self.transform = transform
    }

    func receive(subscription: any Subscription) {
        upstream = subscription
        downstream.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard !done else { return .none }
        do {
            guard let output = try transform(input) else { return .max(1) }
            return downstream.receive(output)
        } catch {
            done = true
            let subscription = upstream
            upstream = nil
            subscription?.cancel()
            downstream.receive(completion: .failure(error))
            return .none
        }
    }

    func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard !done else { return }
        done = true
        upstream = nil
        downstream.receive(completion: completion.eraseError)
    }
}
