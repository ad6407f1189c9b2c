extension Publishers {
    /// A publisher that measures and emits the time interval between events received from an upstream publisher.
    public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The time since the previous element (or since the subscription, for the first).
        public typealias Output = Context.SchedulerTimeType.Stride
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler used for tracking the timing of events.
        public let scheduler: Context

        /// Creates the publisher.
        public init(upstream: Upstream, scheduler: Context) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches the subscriber; the clock starts when it is attached.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(MeasureIntervalInner(downstream: subscriber, scheduler: scheduler))
        }
    }
}

extension Publisher {
    /// Measures and emits the time interval between events received from an upstream publisher.
    ///
    /// ```swift
    /// taps.measureInterval(using: RunLoop.main).sink { print($0.magnitude) }
    /// ```
    public func measureInterval<S: Scheduler>(using scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.MeasureInterval<Self, S>
    {
        Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
    }
}

/// Emits the time since the previous element. As Combine's: a value before the subscription or after the end is
/// dropped, the demand the downstream returns for an interval is requested of the upstream (the value itself
/// returns none), and requests (even of zero) pass straight upstream.
private final class MeasureIntervalInner<Input, Failure: Error, Context: Scheduler, Downstream: Subscriber>:
    Relay<Input, Failure, Downstream>, @unchecked Sendable
where Downstream.Input == Context.SchedulerTimeType.Stride, Downstream.Failure == Failure {
    private let scheduler: Context
    // NB: touched only inside `receive`, which Combine serializes, so no lock.
    private var last: Context.SchedulerTimeType

    init(downstream: Downstream, scheduler: Context) {
        self.scheduler = scheduler
        last = scheduler.now
        super.init(downstream: downstream)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        guard isLive else { return .none }
        let now = scheduler.now
        defer { last = now }
        let more = downstream.receive(last.distance(to: now))
        if more > 0 { upstreamSubscription?.request(more) }
        return .none
    }

    override func receive(completion: Subscribers.Completion<Failure>) {
        if markCompleted() { downstream.receive(completion: completion) }
    }
}
