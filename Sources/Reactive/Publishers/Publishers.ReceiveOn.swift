import Synchronization

extension Publishers {
    /// A publisher that delivers elements to its downstream subscriber on a specific scheduler.
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler the publisher is to use for element delivery.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        /// Creates a publisher that delivers elements to its downstream subscriber on a specific scheduler.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches the subscriber through an inner object that hops to the scheduler.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(ReceiveOnInner(downstream: subscriber, scheduler: scheduler, options: options))
        }
    }
}

extension Publisher {
    /// Specifies the scheduler on which to receive elements from the publisher.
    ///
    /// ```swift
    /// fetch.receive(on: DispatchQueue.main).sink { render($0) }
    /// ```
    public func receive<S: Scheduler>(
        on scheduler: S, options: S.SchedulerOptions? = nil
    ) -> Publishers.ReceiveOn<Self, S> {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}

/// Hands each event to the scheduler; demand the downstream returns there goes back upstream.
private final class ReceiveOnInner<Input, UpstreamFailure: Error, Downstream: Subscriber, Context: Scheduler>:
    Relay<Input, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == UpstreamFailure {
    private let scheduler: Context
    private let options: Context.SchedulerOptions?
    private let cancelled = Atomic<Bool>(false)

    init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        self.scheduler = scheduler
        self.options = options
        super.init(downstream: downstream)
    }

    override func receive(_ input: Input) -> Subscribers.Demand {
        scheduler.schedule(options: options) { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            let more = downstream.receive(input)
            if more > 0 { request(more) }
        }
        return .none
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        guard markCompleted() else { return }
        scheduler.schedule(options: options) { [self] in
            guard !cancelled.load(ordering: .acquiring) else { return }
            downstream.receive(completion: completion)
        }
    }

    override func cancel() {
        cancelled.store(true, ordering: .releasing)
        super.cancel()
    }
}
