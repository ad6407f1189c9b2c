import Synchronization

/// The downstream's subscription for `append`/`prepend` (`Publishers.Concatenate`, "Concatenate"), as Combine's:
/// it subscribes to the prefix through one subscriber type and to the suffix, once the prefix finishes, through
/// another, both under this object's identity and name. The prefix's values are counted against the demand (a
/// value without demand, such as one sent from inside a delivery once the demand is used up, is dropped); the
/// suffix is asked for the demand still outstanding and then passes its values and the demand they return
/// straight through. A cancel lets go of the suffix.
// NB: @unchecked Sendable: all state is behind one Mutex; the downstream and the subscriptions are called outside it.
final class ConcatenateInner<Suffix: Publisher, Downstream: Subscriber>: Subscription, CombineDescribed,
    @unchecked Sendable
where Downstream.Input == Suffix.Output, Downstream.Failure == Suffix.Failure {
    typealias Input = Suffix.Output
    typealias Failure = Suffix.Failure

    var combineName: String { "Concatenate" }
    private let downstream: Downstream
    private let state: Mutex<ConcatenateState<Suffix>>

    init(downstream: Downstream, suffix: Suffix) {
        self.downstream = downstream
        state = Mutex(ConcatenateState(suffix: suffix))
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { state -> (any Subscription)? in
            state.pending += demand
            return state.prefix.subscription ?? state.suffixStatus.subscription
        }?.request(demand)
    }

    func cancel() {
        // NB: the suffix is released after the lock: its deinit may run arbitrary code.
        let (subscription, suffix) = state.withLock { state -> ((any Subscription)?, Suffix?) in
            defer { state.suffix = nil }
            let prefix = state.prefix.terminate()
            let suffix = state.suffixStatus.terminate()
            return (prefix ?? suffix, state.suffix)
        }
        subscription?.cancel()
        withExtendedLifetime(suffix) {}
    }

    fileprivate func prefixSubscribed(_ subscription: any Subscription) {
        guard state.withLock({ $0.prefix.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    fileprivate func prefixValue(_ input: Input) -> Subscribers.Demand {
        let live = state.withLock { state -> Bool in
            guard state.prefix.subscription != nil, state.pending > 0 else { return false }
            state.pending -= 1
            return true
        }
        guard live else { return .none }
        let more = downstream.receive(input)
        if more > 0 { state.withLock { $0.pending += more } }
        return more
    }

    fileprivate func prefixCompleted(_ completion: Subscribers.Completion<Failure>) {
        let suffix = state.withLock { state -> Suffix?? in
            guard state.prefix.subscription != nil else { return nil }
            state.prefix = .terminal
            return .some(state.suffix)
        }
        guard let suffix else { return }
        switch completion {
        case .finished: suffix?.subscribe(ConcatenateSubscriber<ConcatenateSuffix, _, _>(inner: self))
        case .failure: downstream.receive(completion: completion)
        }
    }

    fileprivate func suffixSubscribed(_ subscription: any Subscription) {
        let pending = state.withLock { state -> Subscribers.Demand? in
            guard state.suffixStatus.accept(subscription) else { return nil }
            return state.pending
        }
        guard let pending else { return subscription.cancel() }
        if pending > 0 { subscription.request(pending) }
    }

    fileprivate func suffixValue(_ input: Input) -> Subscribers.Demand {
        guard state.withLock({ $0.suffixStatus.subscription != nil }) else { return .none }
        return downstream.receive(input)
    }

    fileprivate func suffixCompleted(_ completion: Subscribers.Completion<Failure>) {
        let live = state.withLock { state -> Bool in
            guard state.suffixStatus.subscription != nil else { return false }
            state.suffixStatus = .terminal
            return true
        }
        if live { downstream.receive(completion: completion) }
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct ConcatenateState<Suffix>: @unchecked Sendable {
    var suffix: Suffix?
    var prefix = SubscriptionStatus.awaiting
    var suffixStatus = SubscriptionStatus.awaiting
    var pending = Subscribers.Demand.none
}

/// The two parts a `ConcatenateSubscriber` subscribes to.
enum ConcatenatePrefix {}
enum ConcatenateSuffix {}

/// The subscriber of the prefix (`Part` is `ConcatenatePrefix`) or of the suffix (`ConcatenateSuffix`): two
/// types, as Combine's, under their operator's identity and name.
struct ConcatenateSubscriber<Part, Suffix: Publisher, Downstream: Subscriber>: Subscriber, CombineDescribed
where Downstream.Input == Suffix.Output, Downstream.Failure == Suffix.Failure {
    typealias Input = Suffix.Output
    typealias Failure = Suffix.Failure
    let inner: ConcatenateInner<Suffix, Downstream>
    var combineIdentifier: CombineIdentifier { CombineIdentifier(inner) }
    var combineName: String { inner.combineName }
    private var isPrefix: Bool { Part.self == ConcatenatePrefix.self }

    func receive(subscription: any Subscription) {
        isPrefix ? inner.prefixSubscribed(subscription) : inner.suffixSubscribed(subscription)
    }
    func receive(_ input: Input) -> Subscribers.Demand {
        isPrefix ? inner.prefixValue(input) : inner.suffixValue(input)
    }
    func receive(completion: Subscribers.Completion<Failure>) {
        isPrefix ? inner.prefixCompleted(completion) : inner.suffixCompleted(completion)
    }
}
