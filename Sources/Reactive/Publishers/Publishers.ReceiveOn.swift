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
            let (scheduler, options) = (scheduler, options)
            upstream.receive(
                subscriber: ReceiveOnInner(downstream: subscriber) {
                    scheduler.schedule(options: options, $0)
                })
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

/// `receive(on:)`'s hop, described as Combine describes it (`"ReceiveOn"`, no children).
// NB: @unchecked Sendable: its state is its base's.
private final class ReceiveOnInner<Input, UpstreamFailure: Error, Downstream: Subscriber>:
    HopInner<Input, UpstreamFailure, Downstream>, CombineDescribed, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == UpstreamFailure {
    var combineName: String { "ReceiveOn" }
}
