import Synchronization

extension Publishers {
    /// A publisher that receives elements from an upstream publisher on a specific scheduler.
    public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler the publisher should use to receive elements.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that subscribes, requests and cancels on a specific scheduler.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Subscribes to the upstream on the scheduler.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = SubscribeOnInner<Upstream.Output, Upstream.Failure, S, Context>(
                downstream: subscriber, scheduler: scheduler, options: options
            )
            let upstream = upstream
            scheduler.schedule(options: options) { upstream.subscribe(inner) }
        }
    }
}

extension Publisher {
    /// Specifies the scheduler on which to perform subscribe, cancel, and request operations.
    ///
    /// ```swift
    /// expensiveWork.subscribe(on: DispatchQueue.global()).receive(on: DispatchQueue.main)
    /// ```
    public func subscribe<S: Scheduler>(
        on scheduler: S, options: S.SchedulerOptions? = nil
    ) -> Publishers.SubscribeOn<Self, S> {
        Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
    }
}

/// Relays events as they come; requests and cancellation go upstream from the scheduler.
private final class SubscribeOnInner<Input, UpstreamFailure: Error, Downstream: Subscriber, Context: Scheduler>:
    Relay<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == UpstreamFailure {
    private let scheduler: Context
    private let options: Context.SchedulerOptions?

    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        self.scheduler = scheduler
        self.options = options
        super.init(downstream: downstream)
    }

    /// Set by the first cancel: from then on nothing reaches the downstream and nothing more is scheduled, though
    /// the upstream's own cancel waits for its turn on the scheduler (as in Combine).
    private let cancelled = Atomic<Bool>(false)

    override func receive(_ input: Input) -> Subscribers.Demand {
        isLive && !cancelled.load(ordering: .acquiring) ? downstream.receive(input) : .none
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        // NB: after a cancel the completion is ignored outright, so the scheduled cancel still reaches the upstream.
        guard !cancelled.load(ordering: .acquiring) else { return }
        if markCompleted() { downstream.receive(completion: completion) }
    }

    override func request(_ demand: Subscribers.Demand) {
        guard !cancelled.load(ordering: .acquiring) else { return }
        scheduler.schedule(options: options) { [self] in upstreamRequest(demand) }
    }

    override func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        scheduler.schedule(options: options) { [self] in upstreamCancel() }
    }

    /// Serializes the requests that reach the upstream, as Combine's upstream lock does.
    private let requestLock = Mutex(())
    /// The thread passing a request to the upstream (`currentThreadID()`), 0 when none.
    private let requestingThread = Atomic<UInt32>(0)

    /// Passes a request on, one at a time; a request made from inside the upstream's `request` (on the same
    /// thread) traps, where Combine's lock deadlocks.
    private func upstreamRequest(_ demand: Subscribers.Demand) {
        let thread = currentThreadID()
        precondition(
            requestingThread.load(ordering: .acquiring) != thread,
            "subscribe(on:): a request from inside the upstream's request")
        requestLock.withLock { _ in
            requestingThread.store(thread, ordering: .releasing)
            defer { requestingThread.store(0, ordering: .releasing) }
            super.request(demand)
        }
    }
    private func upstreamCancel() { super.cancel() }
}
