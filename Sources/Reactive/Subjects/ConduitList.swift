/// The state both subjects share: their subscribers' conduits, the terminal completion, and the upstream
/// subscriptions they were given through `send(subscription:)`.
// NB: @unchecked Sendable: it only lives inside its subject's Mutex.
struct ConduitList<Output, Failure: Error>: @unchecked Sendable {
    var conduits: ContiguousArray<SubjectConduit<Output, Failure>> = []
    var completion: Subscribers.Completion<Failure>?
    var upstreams: [any Subscription] = []

    /// Ends the subject: returns the conduits to finish (empty if already complete).
    mutating func complete(_ completion: Subscribers.Completion<Failure>) -> ContiguousArray<SubjectConduit<Output, Failure>> {
        guard self.completion == nil else { return [] }
        self.completion = completion
        upstreams = []
        defer { conduits = [] }
        return conduits
    }

    /// Forgets a conduit (most recent first: short-lived subscriptions are usually the newest).
    mutating func detach(_ conduit: SubjectConduit<Output, Failure>) {
        if let index = conduits.lastIndex(where: { $0 === conduit }) {
            conduits.remove(at: index)
        }
    }

    /// Attaches a subscriber (returning its conduit), or returns nil when the subject is complete.
    mutating func attach<S: Subscriber>(
        _ subscriber: S, parent: any ConduitParent<Output, Failure>, deliversCurrentValue: Bool
    ) -> Conduit<S>? where S.Input == Output, S.Failure == Failure {
        guard completion == nil else { return nil }
        let conduit = Conduit(parent: parent, downstream: subscriber, deliversCurrentValue: deliversCurrentValue)
        conduits.append(conduit)
        return conduit
    }
}

extension Subscriber {
    /// Hands the subscriber either its conduit or, for a completed subject, the completion.
    func connect(_ conduit: (any Subscription)?, orComplete completion: Subscribers.Completion<Failure>?) {
        if let conduit {
            receive(subscription: conduit)
        } else {
            receive(subscription: Subscriptions.empty)
            if let completion { receive(completion: completion) }
        }
    }
}
