import Synchronization

/// Base of the time-window operator `debounce`: requests everything upstream, keeps the element
/// waiting for its moment in a locked state, delivers it on the scheduler only if the downstream has demand,
/// and sends the completion from the scheduler (dropping an element still waiting).
class TimedRelay<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>:
    Relay<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    final let scheduler: Context
    final let options: Context.SchedulerOptions?
    final let state = Mutex(TimedState<Upstream.Output>())

    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        self.scheduler = scheduler
        self.options = options
        super.init(downstream: downstream)
    }

    override final func didSubscribe(_ subscription: any Subscription) {
        subscription.request(.unlimited)
    }

    /// Runs `action` on the scheduler once `interval` has passed.
    final func after(_ interval: Context.SchedulerTimeType.Stride, _ action: @escaping () -> Void) {
        scheduler.schedule(
            after: scheduler.now.advanced(by: interval), tolerance: scheduler.minimumTolerance, options: options, action
        )
    }

    /// Sends `value` if the downstream has demand (else drops it), adding back the demand it returns.
    final func deliver(_ value: Upstream.Output) {
        guard
            state.withLock({ state -> Bool in
                guard !state.done, state.demand > 0 else { return false }
                state.demand -= 1
                return true
            })
        else { return }
        let more = downstream.receive(value)
        if more > 0 { state.withLock { $0.demand += more } }
    }

    /// The completion goes through the scheduler without the operator's options, as Combine's; a pending timer
    /// is cancelled at once (what it was to deliver is dropped).
    override final func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        guard markCompleted() else { return }
        state.withLock { state -> (any Cancellable)? in
            defer { state.timer = nil }
            return state.timer
        }?.cancel()
        scheduler.schedule(options: nil) { [self] in
            let live = state.withLock { state -> Bool in
                defer { state.end() }
                return !state.done
            }
            if live { downstream.receive(completion: completion) }
        }
    }

    override final func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.demand += demand }
    }

    override final func cancel() {
        state.withLock { state -> (any Cancellable)? in
            defer { state.end() }
            return state.timer
        }?.cancel()
        super.cancel()
    }
}

/// The element waiting for its moment, and the bookkeeping around it.
// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
struct TimedState<Value>: @unchecked Sendable {
    /// The element waiting (debounce: the latest).
    var held: Value?
    /// Debounce: bumped by every element, so only the newest timer fires.
    var generation: UInt64 = 0
    var demand = Subscribers.Demand.none
    var done = false
    /// The timer armed last (an operator that keeps one), cancelled when it is replaced or the stream ends.
    var timer: (any Cancellable)?

    mutating func end() {
        done = true
        held = nil
        timer = nil
    }
}
