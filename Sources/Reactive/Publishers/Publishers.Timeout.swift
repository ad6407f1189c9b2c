import Synchronization

extension Publishers {
    /// A publisher that terminates publishing if the upstream publisher exceeds a specified time interval
    /// without producing an element.
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum time interval the publisher can go without emitting an element.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler on which to deliver the timeout.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?
        /// A closure that executes if the publisher times out; nil finishes normally instead.
        public let customError: (() -> Upstream.Failure)?

        /// Creates a publisher that times out after `interval` without an element.
        public init(
            upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?, customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?
        ) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Attaches the subscriber through a timing inner object.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: TimeoutInner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Terminates publishing if the upstream publisher exceeds the specified time interval without producing an
    /// element.
    ///
    /// ```swift
    /// fetch.timeout(.seconds(10), scheduler: DispatchQueue.main, customError: { .timedOut })
    /// ```
    public func timeout<S: Scheduler>(
        _ interval: S.SchedulerTimeType.Stride, scheduler: S, options: S.SchedulerOptions? = nil,
        customError: (() -> Failure)? = nil
    ) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(
            upstream: self, interval: interval, scheduler: scheduler, options: options, customError: customError)
    }
}

/// Arms a timer at subscription and after every element; a timer whose generation is still current ends the
/// stream (cancelling the upstream).
private final class TimeoutInner<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>:
    Relay<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    private let publisher: Publishers.Timeout<Upstream, Context>
    private let generation = Atomic<UInt64>(0)
    /// Set by cancel or the timeout: scheduled deliveries still waiting are dropped.
    private let stopped = Atomic<Bool>(false)

    init(downstream: Downstream, publisher: Publishers.Timeout<Upstream, Context>) {
        self.publisher = publisher
        super.init(downstream: downstream)
    }

    override func receive(subscription: any Subscription) {
        arm(0)
        super.receive(subscription: subscription)
    }

    // As in Combine, values and the completion reach the downstream through the scheduler, like the timeout.
    override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        guard isLive else { return .none }
        arm(generation.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue)
        publisher.scheduler.schedule(options: publisher.options) { [self] in
            guard !stopped.load(ordering: .acquiring) else { return }
            let more = downstream.receive(input)
            if more > 0 { request(more) }
        }
        return .none
    }

    override func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        guard markCompleted() else { return }
        generation.wrappingAdd(1, ordering: .acquiringAndReleasing)
        publisher.scheduler.schedule(options: publisher.options) { [self] in
            guard !stopped.load(ordering: .acquiring) else { return }
            downstream.receive(completion: completion)
        }
    }

    override func cancel() {
        stopped.store(true, ordering: .releasing)
        super.cancel()
    }

    private func arm(_ armed: UInt64) {
        let scheduler = publisher.scheduler
        scheduler.schedule(
            after: scheduler.now.advanced(by: publisher.interval), tolerance: scheduler.minimumTolerance,
            options: publisher.options
        ) { [self] in
            guard generation.load(ordering: .acquiring) == armed, cancelUpstream() else { return }
            stopped.store(true, ordering: .releasing)
            if let customError = publisher.customError {
                downstream.receive(completion: .failure(customError()))
            } else {
                downstream.receive(completion: .finished)
            }
        }
    }
}
