/// What a child's value does: goes out nested in this thread's delivery, starts a delivery, or waits.
@usableFromInline
enum FlatMapValueStep {
    case ignore
    case nested
    case deliver
}

@usableFromInline
enum FlatMapStep<Output, Failure: Error> {
    case idle
    case deliver(Output, (any Subscription)?)
    case complete(Subscribers.Completion<Failure>)
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
@usableFromInline
struct FlatMapState<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline var outer = SubscriptionStatus.awaiting
    /// Live children by id; `.some(nil)` until the child's subscription arrives.
    @usableFromInline var children: [Int: (any Subscription)?] = [:]
    @usableFromInline var nextID = 0
    @usableFromInline var demand = Subscribers.Demand.none
    @usableFromInline var buffer: [(Int, Output)] = []
    @usableFromInline var delivering = false
    /// The thread delivering (`currentThreadID()`), 0 when none: a value it sends meanwhile goes out nested.
    @usableFromInline var deliveringThread: UInt32 = 0
    /// The downstream's failure is being delivered on `deliveringThread`.
    @usableFromInline var failing = false
    @usableFromInline var pendingCompletion: Subscribers.Completion<Failure>?
    @usableFromInline var outerFinished = false
    @usableFromInline var done = false
    /// An upstream failure is cancelling the children.
    @usableFromInline var cancellingChildren = false

    @inlinable
    init() {}

    /// True once (and only once) everything has finished and nothing is left to deliver.
    @inlinable
    mutating func claimFinish() -> Bool {
        guard !done, outerFinished, children.isEmpty, buffer.isEmpty, !delivering else { return false }
        done = true
        return true
    }
}
