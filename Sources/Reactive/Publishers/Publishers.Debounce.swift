import Synchronization

extension Publishers {
    /// A publisher that publishes elements only after a specified time interval elapses between events.
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The amount of time the publisher should wait before publishing an element.
        public let dueTime: Context.SchedulerTimeType.Stride
        /// The scheduler on which this publisher delivers elements.
        public let scheduler: Context
        /// Scheduler options that customize this publisher's delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that publishes elements only after a specified quiet interval.
        public init(
            upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?
        ) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber through a timing inner object.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: DebounceInner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Publishes elements only after a specified time interval elapses between events.
    ///
    /// ```swift
    /// $keyword.debounce(for: .milliseconds(500), scheduler: DispatchQueue.main).sink { search($0) }
    /// ```
    public func debounce<S: Scheduler>(
        for dueTime: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil
    ) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}

/// Keeps the latest element and a generation number; a scheduled emission fires only if no newer element
/// arrived meanwhile. Emissions happen on the scheduler; an element with no downstream demand is dropped.
private final class DebounceInner<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>:
    Relay<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    private let dueTime: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let options: Context.SchedulerOptions?
    private let state = Mutex(DebounceState<Upstream.Output>())

    init(downstream: Downstream, publisher: Publishers.Debounce<Upstream, Context>) {
        dueTime = publisher.dueTime
        scheduler = publisher.scheduler
        options = publisher.options
        super.init(downstream: downstream)
    }

    override func receive(subscription: any Subscription) {
        super.receive(subscription: subscription)
        subscription.request(.unlimited)
    }

    override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        let generation = state.withLock { state -> UInt64? in
            guard !state.done else { return nil }
            state.generation &+= 1
            state.latest = input
            return state.generation
        }
        guard let generation else { return .none }
        scheduler.schedule(after: scheduler.now.advanced(by: dueTime), tolerance: scheduler.minimumTolerance,
                           options: options) { [self] in
            emit(generation)
        }
        return .none
    }

    private func emit(_ generation: UInt64) {
        let value = state.withLock { state -> Upstream.Output? in
            guard !state.done, state.generation == generation, let latest = state.latest else { return nil }
            state.latest = nil
            guard state.demand > 0 else { return nil }
            state.demand -= 1
            return latest
        }
        guard let value else { return }
        let more = downstream.receive(value)
        if more > 0 { state.withLock { $0.demand += more } }
    }

    override func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        guard markCompleted() else { return }
        scheduler.schedule(options: options) { [self] in
            let live = state.withLock { state -> Bool in
                defer { state.done = true; state.latest = nil }
                return !state.done
            }
            if live { downstream.receive(completion: completion) }
        }
    }

    override func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.demand += demand }
    }

    override func cancel() {
        state.withLock { state in
            state.done = true
            state.latest = nil
        }
        super.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct DebounceState<Value>: @unchecked Sendable {
    var latest: Value?
    var generation: UInt64 = 0
    var demand = Subscribers.Demand.none
    var done = false
}
