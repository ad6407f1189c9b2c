import Synchronization

/// How a `CombineInner` pairs its children's elements.
enum CombineMode {
    /// Emit the latest element of every child whenever any child emits (once all have emitted): combineLatest.
    case latest
    /// Emit one element of every child, oldest first, as soon as each child has one queued: zip.
    case zip
}

/// The downstream's subscription for `combineLatest` and `zip`, over any number of children whose elements it
/// holds type-erased and hands to `combine` in child order. Delivery is serialized: one thread delivers at a
/// time, the others leave their work in the state for it.
// NB: @unchecked Sendable: all state is behind one Mutex.
final class CombineInner<Downstream: Subscriber>: Subscription, CombineDescribed, @unchecked Sendable {
    /// Combine's name for the operator ("Zip", "CombineLatest").
    let combineName: String
    private let downstream: Downstream
    private let mode: CombineMode
    private let combine: ([Any]) -> Downstream.Input
    private let state: Mutex<CombineState<Downstream.Failure>>

    init(
        name: String, downstream: Downstream, count: Int, mode: CombineMode,
        combine: @escaping ([Any]) -> Downstream.Input
    ) {
        combineName = name
        self.downstream = downstream
        self.mode = mode
        self.combine = combine
        state = Mutex(CombineState(count: count))
    }

    /// Hands the downstream this subscription, then subscribes to every child.
    func start(_ subscribeChildren: (CombineInner) -> Void) {
        downstream.receive(subscription: self)
        subscribeChildren(self)
    }

    /// Subscribes to one child publisher at `index`.
    func attach<P: Publisher>(_ publisher: P, at index: Int) where P.Failure == Downstream.Failure {
        publisher.subscribe(CombineChild<P.Output, Downstream>(owner: self, index: index))
    }

    fileprivate func childSubscribed(_ index: Int, _ subscription: any Subscription) {
        let demand = state.withLock { state -> Subscribers.Demand? in
            // NB: as Combine's zip, a child's second subscription is cancelled.
            guard !state.done, mode == .latest || state.subscriptions[index] == nil else { return nil }
            state.subscriptions[index] = subscription
            return mode == .latest ? .unlimited : state.demand
        }
        guard let demand else { return subscription.cancel() }
        if demand > 0 { subscription.request(demand) }
    }

    /// Takes a child's value; zip returns the demand meant for this child when the value completes a tuple
    /// (the downstream's returned demand, and what it requests while it receives the tuple), as Combine's does,
    /// instead of requesting it.
    fileprivate func childValue(_ index: Int, _ value: Any) -> Subscribers.Demand {
        let claimed = state.withLock { state -> Bool in
            guard !state.done else { return false }
            switch mode {
            case .latest:
                state.latest[index] = value
                if state.latest.allSatisfy({ $0 != nil }) { state.ready = true }
            case .zip:
                state.queues[index].append(value)
                // NB: as Combine's zip, a tuple a child's value completes goes out even without demand.
                if state.queues.allSatisfy({ !$0.isEmpty }) {
                    state.ready = true
                    state.forced += 1
                }
            }
            guard !state.delivering else { return false }
            state.delivering = true
            if mode == .zip { state.trigger = index }
            return true
        }
        guard claimed else { return .none }
        drain()
        return state.withLock { state in
            defer {
                state.trigger = nil
                state.triggerDemand = .none
            }
            return state.triggerDemand
        }
    }

    fileprivate func childCompleted(_ index: Int, _ completion: Subscribers.Completion<Downstream.Failure>) {
        let claimed = state.withLock { state -> Bool in
            guard !state.done else { return false }
            switch completion {
            case .failure:
                state.ending = completion
            case .finished:
                state.finished[index] = true
                // NB: combineLatest ends when a child finishes before emitting or all have finished; zip ends as
                // soon as a finished child has nothing queued, since no further tuple can form.
                switch mode {
                case .latest:
                    if state.latest[index] == nil || state.finished.allSatisfy({ $0 }) { state.ending = .finished }
                case .zip:
                    if state.queues[index].isEmpty { state.ending = .finished }
                }
            }
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        if claimed { drain() }
    }

    /// Runs as the single deliverer until there is nothing it may deliver.
    private func drain() {
        var more = Subscribers.Demand.none
        while true {
            let step = state.withLock { state -> CombineStep<Downstream.Failure> in
                state.demand += more
                more = .none
                if state.ready, state.demand > 0 || state.forced > 0 {
                    if state.forced > 0 { state.forced -= 1 }
                    if state.demand > 0 { state.demand -= 1 }
                    switch mode {
                    case .latest:
                        state.ready = false
                        return .emit(state.latest.map { $0! }, [])
                    case .zip:
                        let values = state.queues.indices.map { state.queues[$0].removeFirst() }
                        state.ready = state.queues.allSatisfy { !$0.isEmpty }
                        if state.ending == nil,
                            state.finished.indices.contains(where: { state.finished[$0] && state.queues[$0].isEmpty })
                        {
                            state.ending = .finished
                        }
                        return .emit(values, state.requestable)
                    }
                }
                if let ending = state.ending {
                    state.done = true
                    state.delivering = false
                    // NB: as Combine's zip, a child that has finished is not cancelled.
                    let toCancel = state.subscriptions.indices.compactMap { index in
                        mode == .zip && state.finished[index] ? nil : state.subscriptions[index]
                    }
                    state.subscriptions = state.subscriptions.map { _ in nil }
                    return .complete(ending, toCancel)
                }
                state.delivering = false
                return .idle
            }
            switch step {
            case .idle:
                return
            case .emit(let values, let children):
                more = downstream.receive(combine(values))
                if more > 0 {
                    state.withLock { $0.triggerDemand += $0.trigger == nil ? .none : more }
                    for child in children { child.request(more) }
                }
            case .complete(let completion, let children):
                for child in children { child.cancel() }
                downstream.receive(completion: completion)
                return
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        if mode == .zip { demand.assertNonZero() }
        let (children, claimed) = state.withLock { state -> ([any Subscription], Bool) in
            guard !state.done else { return ([], false) }
            state.demand += demand
            if state.trigger != nil { state.triggerDemand += demand }
            let children = mode == .zip ? state.requestable : []
            guard state.ready, !state.delivering else { return (children, false) }
            state.delivering = true
            return (children, true)
        }
        for child in children { child.request(demand) }
        if claimed { drain() }
    }

    func cancel() {
        let children = state.withLock { state -> [any Subscription] in
            state.done = true
            defer { state.subscriptions = state.subscriptions.map { _ in nil } }
            return state.subscriptions.compactMap { $0 }
        }
        for child in children { child.cancel() }
    }
}

private enum CombineStep<Failure: Error> {
    case idle
    case emit([Any], [any Subscription])
    case complete(Subscribers.Completion<Failure>, [any Subscription])
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct CombineState<Failure: Error>: @unchecked Sendable {
    var subscriptions: [(any Subscription)?]
    var latest: [Any?]
    var queues: [[Any]]
    var finished: [Bool]
    var demand = Subscribers.Demand.none
    /// Zip: tuples completed by a child's value, which go out whatever the demand.
    var forced = 0
    var ready = false
    var delivering = false
    var ending: Subscribers.Completion<Failure>?
    var done = false
    /// Zip: the child whose value is being delivered, and the demand to return to it rather than request.
    var trigger: Int?
    var triggerDemand = Subscribers.Demand.none

    init(count: Int) {
        subscriptions = Array(repeating: nil, count: count)
        latest = Array(repeating: nil, count: count)
        queues = Array(repeating: [], count: count)
        finished = Array(repeating: false, count: count)
    }

    /// The children to request more of: all but the one whose value is being delivered.
    var requestable: [any Subscription] {
        subscriptions.indices.compactMap { $0 == trigger ? nil : subscriptions[$0] }
    }
}

/// Subscribes to one child publisher on behalf of a `CombineInner`.
private struct CombineChild<Input, Downstream: Subscriber>: Subscriber {
    typealias Failure = Downstream.Failure
    let owner: CombineInner<Downstream>
    let index: Int
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: any Subscription) { owner.childSubscribed(index, subscription) }
    func receive(_ input: Input) -> Subscribers.Demand { owner.childValue(index, input) }
    func receive(completion: Subscribers.Completion<Failure>) { owner.childCompleted(index, completion) }
}
