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
    TimedRelay<Upstream, Context, Downstream>, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    private let dueTime: Context.SchedulerTimeType.Stride

    init(downstream: Downstream, publisher: Publishers.Debounce<Upstream, Context>) {
        dueTime = publisher.dueTime
        super.init(downstream: downstream, scheduler: publisher.scheduler, options: publisher.options)
    }

    /// Combine's children: the downstream, its outstanding demand and the element held for the timer.
    override var customMirror: Mirror {
        let (demand, held) = state.withLock { ($0.demand, $0.held) }
        let children: [Mirror.Child] = [
            ("downstream", downstream), ("downstreamDemand", demand), ("currentValue", held as Any),
        ]
        return Mirror(self, children: children)
    }

    /// Each element replaces the held one and the timer: a repeating timer of the due time, as Combine's, whose
    /// first firing delivers the element (or drops it without demand) and cancels it.
    override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        guard isLive else { return .none }
        let generation = state.withLock { state -> UInt64? in
            guard !state.done else { return nil }
            state.generation &+= 1
            state.held = input
            return state.generation
        }
        guard let generation else { return .none }
        // NB: nonisolated(unsafe): a scheduler's cancellable need not be Sendable; this one is only kept in the
        // lock's state and cancelled once, by whoever takes it out.
        nonisolated(unsafe) let timer = scheduler.schedule(
            after: scheduler.now.advanced(by: dueTime), interval: dueTime, tolerance: scheduler.minimumTolerance,
            options: options
        ) { [self] in fire(generation) }
        let replaced = state.withLock { state -> (any Cancellable)? in
            guard state.generation == generation, !state.done else { return timer }
            defer { state.timer = timer }
            return state.timer
        }
        replaced?.cancel()
        return .none
    }

    private func fire(_ generation: UInt64) {
        let fired = state.withLock { state -> (value: Upstream.Output?, timer: (any Cancellable)?)? in
            guard state.generation == generation, !state.done else { return nil }
            defer {
                state.held = nil
                state.timer = nil
            }
            return (state.held, state.timer)
        }
        guard let fired else { return }
        fired.timer?.cancel()
        if let value = fired.value { deliver(value) }
    }
}
