import Synchronization

extension Publishers {
    /// A publisher that publishes either the most-recent or first element published by the upstream publisher
    /// in a specified time interval.
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The interval in which to find and emit the most recent element.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler on which to publish elements.
        public let scheduler: Context
        /// A Boolean value indicating whether to publish the most recent element (else the first) of the interval.
        public let latest: Bool

        /// Creates a publisher that publishes the most-recent or first element of each interval.
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        /// Attaches the subscriber through a timing inner object.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: ThrottleInner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Publishes either the most-recent or first element published by the upstream publisher in the specified
    /// time interval. The first element goes out at once; later ones at the end of each interval.
    ///
    /// ```swift
    /// scrollOffsets.throttle(for: .milliseconds(100), scheduler: DispatchQueue.main, latest: true)
    /// ```
    public func throttle<S: Scheduler>(
        for interval: S.SchedulerTimeType.Stride, scheduler: S, latest: Bool
    ) -> Publishers.Throttle<Self, S> {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}

/// An element arriving outside a window goes out at once (on the scheduler) and opens a window; elements
/// arriving inside it are held (latest or first) and go out when it closes, which opens the next window.
private final class ThrottleInner<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>:
    TimedRelay<Upstream, Context, Downstream>, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    private let interval: Context.SchedulerTimeType.Stride
    private let latest: Bool

    init(downstream: Downstream, publisher: Publishers.Throttle<Upstream, Context>) {
        interval = publisher.interval
        latest = publisher.latest
        super.init(downstream: downstream, scheduler: publisher.scheduler, options: nil)
    }

    override var cancelsEarly: Bool { true }

    override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        guard isLive else { return .none }
        let opensWindow = state.withLock { state -> Bool in
            guard !state.done else { return false }
            if state.windowOpen {
                if latest || state.held == nil { state.held = input }
                return false
            }
            state.windowOpen = true
            return true
        }
        if opensWindow {
            scheduler.schedule(options: nil) { [self] in deliver(input) }
            scheduleWindowEnd()
        }
        return .none
    }

    private func scheduleWindowEnd() {
        after(interval) { [self] in
            let held = state.withLock { state -> Upstream.Output? in
                guard !state.done, let held = state.held else {
                    state.windowOpen = false
                    return nil
                }
                state.held = nil
                return held
            }
            if let held {
                deliver(held)
                scheduleWindowEnd()
            }
        }
    }
}
