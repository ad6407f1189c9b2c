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

        /// Attaches the subscriber; the clock starts at the subscription.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let scheduler = scheduler
            var last = scheduler.now
            upstream.subscribe(
                subscriber, name: "MeasureInterval",
                step: { _ in
                    let now = scheduler.now
                    defer { last = now }
                    return .emit(last.distance(to: now))
                })
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
