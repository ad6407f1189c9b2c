import Synchronization

extension Publishers {
    /// A strategy for collecting received elements.
    public enum TimeGroupingStrategy<Context: Scheduler> {
        /// A grouping that collects and periodically publishes items.
        case byTime(Context, Context.SchedulerTimeType.Stride)
        /// A grouping that collects and publishes items periodically or when a buffer reaches a maximum size.
        case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
    }

    /// A publisher that buffers and periodically publishes its items.
    public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = [Upstream.Output]
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The strategy with which to collect and publish elements.
        public let strategy: TimeGroupingStrategy<Context>
        /// Scheduler options to use for the strategy.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that buffers and periodically publishes its items.
        public init(upstream: Upstream, strategy: TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
            if case .byTimeOrCount(_, _, let count) = strategy {
                precondition(count > 0, "count must be greater than zero")
            }
            self.upstream = upstream
            self.strategy = strategy
            self.options = options
        }

        /// Attaches the subscriber through an object that cuts the elements into groups.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(
                subscriber: CollectByTimeInner(downstream: subscriber, strategy: strategy, options: options))
        }
    }
}

extension Publisher {
    /// Collects elements by a given time-grouping strategy, and emits a single array of the collection.
    ///
    /// ```swift
    /// taps.collect(.byTimeOrCount(DispatchQueue.main, .seconds(1), 10))   // at most 10 taps a group
    /// ```
    public func collect<S: Scheduler>(
        _ strategy: Publishers.TimeGroupingStrategy<S>, options: S.SchedulerOptions? = nil
    ) -> Publishers.CollectByTime<Self, S> {
        Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
    }
}

/// Collects elements and cuts a group at the end of every interval (if it holds anything) and, with a count,
/// as soon as it is full. Groups wait for the downstream's demand; a finish sends what was collected and then
/// the completion, a failure drops it.
// NB: the intervals are one repeating timer from the subscription; a group cut by count does not restart it
// (Apple's Combine, as observed: docs/combine-compatibility.md gives the evidence).
private final class CollectByTimeInner<Element, UpstreamFailure: Error, Context: Scheduler, Downstream: Subscriber>:
    Relay<Element, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == [Element], Downstream.Failure == UpstreamFailure {
    private let scheduler: Context
    private let interval: Context.SchedulerTimeType.Stride
    private let count: Int
    private let options: Context.SchedulerOptions?
    private let state = Mutex(CollectByTimeState<Element, UpstreamFailure>())

    init(downstream: Downstream, strategy: Publishers.TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?)
    {
        switch strategy {
        case .byTime(let scheduler, let interval):
            (self.scheduler, self.interval, count) = (scheduler, interval, .max)
        case .byTimeOrCount(let scheduler, let interval, let count):
            (self.scheduler, self.interval, self.count) = (scheduler, interval, count)
        }
        self.options = options
        super.init(downstream: downstream, name: "CollectByTime")
    }

    override func didSubscribe(_ subscription: any Subscription) {
        startInterval()
        subscription.request(.unlimited)
    }

    /// Starts the repeating interval timer, once, at subscription.
    private func startInterval() {
        // NB: nonisolated(unsafe): a scheduler's cancellable is cancelled from whichever thread ends the operator.
        nonisolated(unsafe) let timer = scheduler.schedule(
            after: scheduler.now.advanced(by: interval), interval: interval, tolerance: scheduler.minimumTolerance,
            options: options
        ) { [weak self] in self?.intervalEnded() }
        let kept = state.withLock { state -> Bool in
            guard !state.done else { return false }
            state.timer = UncheckedCancellable(base: timer)
            return true
        }
        if !kept { timer.cancel() }
    }

    private func intervalEnded() {
        let cut = state.withLock { state -> Bool in
            guard !state.done, !state.collecting.isEmpty else { return false }
            state.cutGroup()
            return true
        }
        if cut { deliverGroups() }
    }

    override func receive(_ input: Element) -> Subscribers.Demand {
        guard isLive else { return .none }
        let full = state.withLock { state -> Bool in
            guard !state.done, !state.finishing else { return false }
            state.collecting.append(input)
            guard state.collecting.count >= count else { return false }
            state.cutGroup()
            return true
        }
        if full { deliverOnScheduler() }
        return .none
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard markCompleted() else { return }
        let timer = state.withLock { state -> UncheckedCancellable? in
            guard !state.done else { return nil }
            switch completion {
            case .finished:
                if !state.collecting.isEmpty { state.cutGroup() }
                state.finishing = true
            case .failure:
                state.groups = []
                state.collecting = []
                state.failure = completion
            }
            defer { state.timer = nil }
            return state.timer
        }
        timer?.base.cancel()
        deliverOnScheduler()
    }

    /// A group cut by count and the completion are handed to the scheduler, not sent on the upstream's
    /// thread (Apple's Combine since iOS 13.3 / macOS 10.15.2: docs/combine-compatibility.md). The action
    /// holds the operator, so nothing is lost when the chain's last owner lets go meanwhile.
    private func deliverOnScheduler() {
        scheduler.schedule(options: options) { self.deliverGroups() }
    }

    override func request(_ demand: Subscribers.Demand) {
        precondition(demand > 0, "demand must be greater than zero")
        state.withLock { $0.demand += demand }
        deliverGroups()
    }

    override func cancel() {
        let timer = state.withLock { state -> UncheckedCancellable? in
            state.done = true
            state.groups = []
            state.collecting = []
            defer { state.timer = nil }
            return state.timer
        }
        timer?.base.cancel()
        super.cancel()
    }

    /// Delivers waiting groups while there is demand, one deliverer at a time; then the completion, once
    /// nothing is left to deliver.
    private func deliverGroups() {
        while true {
            let step = state.withLock { $0.nextStep() }
            switch step {
            case .idle:
                return
            case .group(let group):
                let more = downstream.receive(group)
                state.withLock { state in
                    state.demand += more
                    state.delivering = false
                }
            case .complete(let completion):
                downstream.receive(completion: completion)
                return
            }
        }
    }
}

/// A scheduler's cancellable, moved between threads.
// NB: @unchecked Sendable: schedulers' cancellables may be cancelled from any thread.
private struct UncheckedCancellable: @unchecked Sendable {
    let base: any Cancellable
}

private enum CollectByTimeStep<Element, Failure: Error> {
    case idle
    case group([Element])
    case complete(Subscribers.Completion<Failure>)
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct CollectByTimeState<Element, Failure: Error>: @unchecked Sendable {
    var collecting: [Element] = []
    var groups: [[Element]] = []
    var demand = Subscribers.Demand.none
    var timer: UncheckedCancellable?
    var delivering = false
    var finishing = false
    var failure: Subscribers.Completion<Failure>?
    var done = false

    mutating func cutGroup() {
        groups.append(collecting)
        collecting = []
    }

    /// What the deliverer does next: claims a group (and a unit of demand), the completion, or nothing.
    mutating func nextStep() -> CollectByTimeStep<Element, Failure> {
        guard !done, !delivering else { return .idle }
        if let failure {
            done = true
            return .complete(failure)
        }
        if !groups.isEmpty, demand > 0 {
            demand -= 1
            delivering = true
            return .group(groups.removeFirst())
        }
        if finishing, groups.isEmpty {
            done = true
            return .complete(.finished)
        }
        return .idle
    }
}
