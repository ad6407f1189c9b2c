import Synchronization

/// What a chained operator does when the current link's publisher completes.
enum ChainNext<Failure: Error> {
    /// Pass this completion downstream.
    case complete(Subscribers.Completion<Failure>)
    /// Subscribe the next publisher (the closure calls `ChainInner.link(_:onCompletion:)`).
    case next(() -> Void)
}

/// The downstream's single subscription for operators that feed it from one publisher after another
/// (`append`/`prepend`: `Publishers.Concatenate`): outstanding demand carries over from link to link.
// NB: @unchecked Sendable: all state is behind one Mutex.
final class ChainInner<Downstream: Subscriber>: Subscription, CombineDescribed, @unchecked Sendable {
    /// Combine's name for the operator ("Concatenate").
    let combineName: String
    private let downstream: Downstream
    private let state = Mutex(ChainState())

    init(name: String, downstream: Downstream) {
        combineName = name
        self.downstream = downstream
    }

    /// Subscribes to `publisher` as the next link; `onCompletion` decides what its completion means.
    func link<P: Publisher>(
        _ publisher: P, onCompletion: @escaping (Subscribers.Completion<P.Failure>) -> ChainNext<Downstream.Failure>
    )
    where P.Output == Downstream.Input {
        let id = state.withLock { state -> Int? in
            guard !state.done else { return nil }
            state.linkID += 1
            state.status = .awaiting
            return state.linkID
        }
        guard let id else { return }
        publisher.subscribe(ChainLink(owner: self, id: id, onCompletion: onCompletion))
    }

    fileprivate func linkSubscribed(_ id: Int, _ subscription: any Subscription) {
        let (accepted, first, demand) = state.withLock { state -> (Bool, Bool, Subscribers.Demand) in
            guard !state.done, state.linkID == id, case .awaiting = state.status else { return (false, false, .none) }
            state.status = .subscribed(subscription)
            defer { state.started = true }
            return (true, !state.started, state.demand)
        }
        guard accepted else { return subscription.cancel() }
        if first { downstream.receive(subscription: self) }
        if !first, demand > 0 { subscription.request(demand) }
    }

    fileprivate func linkValue(_ id: Int, _ value: Downstream.Input) -> Subscribers.Demand {
        guard
            state.withLock({ state -> Bool in
                // NB: as Combine's, a value before the link's subscription is ignored.
                guard !state.done, state.linkID == id, case .subscribed = state.status else { return false }
                state.demand -= 1
                return true
            })
        else { return .none }
        let more = downstream.receive(value)
        if more > 0 { state.withLock { $0.demand += more } }
        return more
    }

    fileprivate func linkCompleted(_ id: Int, _ next: ChainNext<Downstream.Failure>) {
        guard
            state.withLock({ state -> Bool in
                guard !state.done, state.linkID == id, case .subscribed = state.status else { return false }
                state.status = .terminal
                if case .complete = next { state.done = true }
                return true
            })
        else { return }
        switch next {
        case .complete(let completion):
            downstream.receive(completion: completion)
        case .next(let subscribeNext):
            subscribeNext()
        }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { state -> (any Subscription)? in
            state.demand += demand
            return state.status.subscription
        }?.request(demand)
    }

    func cancel() {
        state.withLock { state -> (any Subscription)? in
            state.done = true
            return state.status.terminate()
        }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct ChainState: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    var demand = Subscribers.Demand.none
    var linkID = 0
    var started = false
    var done = false
}

/// Subscribes to one link's publisher on behalf of a `ChainInner`, under its name and identity, as Combine's
/// subscribers of `append`/`prepend` are one object with the downstream's subscription.
private struct ChainLink<LinkFailure: Error, Downstream: Subscriber>: Subscriber, CombineDescribed {
    typealias Input = Downstream.Input
    typealias Failure = LinkFailure
    let owner: ChainInner<Downstream>
    let id: Int
    let onCompletion: (Subscribers.Completion<LinkFailure>) -> ChainNext<Downstream.Failure>
    var combineIdentifier: CombineIdentifier { CombineIdentifier(owner) }
    var combineName: String { owner.combineName }

    func receive(subscription: any Subscription) { owner.linkSubscribed(id, subscription) }
    func receive(_ input: Input) -> Subscribers.Demand { owner.linkValue(id, input) }
    func receive(completion: Subscribers.Completion<LinkFailure>) { owner.linkCompleted(id, onCompletion(completion)) }
}
