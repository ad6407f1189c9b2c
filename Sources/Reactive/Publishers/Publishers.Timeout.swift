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

/// The subscriber of `timeout` ("Timeout"), as Combine's: a repeating timer of the interval is armed when the
/// subscription comes, on the first request and on each value (the previous one cancelled); values and the upstream's
/// completion reach the downstream through the scheduler; the timer's first firing after its last arming ends
/// the stream (the upstream cancelled, the custom error or a finish sent from the timer's action). A cancel
/// reaches the upstream even after its completion, and drops what is still on its way.
// NB: @unchecked Sendable: all state is Mutex-guarded; the scheduler, the downstream and the upstream are called
// outside the lock.
private final class TimeoutInner<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>: Subscriber,
    Subscription, CombineDescribed, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let downstream: Downstream
    private let publisher: Publishers.Timeout<Upstream, Context>
    private let state = Mutex(TimeoutState())
    var combineName: String { "Timeout" }

    init(downstream: Downstream, publisher: Publishers.Timeout<Upstream, Context>) {
        self.downstream = downstream
        self.publisher = publisher
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { $0.ended ? false : $0.upstream.accept(subscription) }
        guard accepted else { return subscription.cancel() }
        arm()
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard state.withLock({ $0.isLive }) else { return .none }
        arm()
        publisher.scheduler.schedule(options: publisher.options) { [self] in
            guard let upstream = state.withLock({ $0.ended ? nil : $0.upstream.subscription }) else { return }
            let more = downstream.receive(input)
            if more > 0 { upstream.request(more) }
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let timer = state.withLock { state -> (any Cancellable)?? in
            guard state.isLive else { return nil }
            state.upstreamCompleted = true
            defer { state.timer = nil }
            return .some(state.timer)
        }
        guard let timer else { return }
        timer?.cancel()
        publisher.scheduler.schedule(options: publisher.options) { [self] in
            let live = state.withLock { state -> Bool in
                guard !state.ended else { return false }
                state.ended = true
                return true
            }
            if live { downstream.receive(completion: completion) }
        }
    }

    /// The first request arms the timer again (the wait starts over once the downstream has asked).
    func request(_ demand: Subscribers.Demand) {
        let (upstream, first) = state.withLock { state -> ((any Subscription)?, Bool) in
            guard !state.ended, let upstream = state.upstream.subscription else { return (nil, false) }
            defer { state.requested = true }
            return (upstream, !state.requested && !state.upstreamCompleted)
        }
        guard let upstream else { return }
        if first { arm() }
        upstream.request(demand)
    }

    /// A cancel before the subscription does nothing (the subscription, when it comes, is taken).
    func cancel() {
        let (upstream, timer) = state.withLock { state -> ((any Subscription)?, (any Cancellable)?) in
            guard !state.ended, state.upstream.subscription != nil else { return (nil, nil) }
            state.ended = true
            defer { state.timer = nil }
            return (state.upstream.terminate(), state.timer)
        }
        timer?.cancel()
        upstream?.cancel()
    }

    /// Replaces the timer with a new one of the interval from now.
    private func arm() {
        let scheduler = publisher.scheduler
        let generation = state.withLock { state -> UInt64 in
            state.generation &+= 1
            return state.generation
        }
        // NB: nonisolated(unsafe): a scheduler's cancellable need not be Sendable; this one is only kept in the
        // lock's state and cancelled once, by whoever takes it out.
        let thread = currentThreadID()
        state.withLock { $0.armingThread = thread }
        nonisolated(unsafe) let timer = scheduler.schedule(
            after: scheduler.now.advanced(by: publisher.interval), interval: publisher.interval,
            tolerance: scheduler.minimumTolerance, options: publisher.options
        ) { [self] in timedOut(generation) }
        let replaced = state.withLock { state -> (any Cancellable)? in
            state.armingThread = 0
            guard state.generation == generation, state.isLive else { return timer }
            defer { state.timer = timer }
            return state.timer
        }
        replaced?.cancel()
    }

    /// The timer fired. From inside the `schedule` call that armed it (a scheduler that runs at once, such as
    /// `ImmediateScheduler`) it traps, where Combine's lock deadlocks.
    private func timedOut(_ generation: UInt64) {
        let thread = currentThreadID()
        precondition(
            state.withLock { $0.armingThread } != thread, "timeout(_:scheduler:): the scheduler ran the timer at once")
        let (upstream, timer) =
            state.withLock { state -> ((any Subscription)?, (any Cancellable)?)? in
                guard state.generation == generation, state.isLive else { return nil }
                state.ended = true
                defer { state.timer = nil }
                return (state.upstream.terminate(), state.timer)
            } ?? (nil, nil)
        guard let upstream else { return }
        timer?.cancel()
        upstream.cancel()
        if let customError = publisher.customError {
            downstream.receive(completion: .failure(customError()))
        } else {
            downstream.receive(completion: .finished)
        }
    }
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct TimeoutState: @unchecked Sendable {
    /// The thread arming the timer (`currentThreadID()`), 0 when none.
    var armingThread: UInt32 = 0
    var upstream = SubscriptionStatus.awaiting
    /// The timer armed last, and how many armings there have been (a stale timer's firing is ignored).
    var timer: (any Cancellable)?
    var generation: UInt64 = 0
    /// The downstream has made its first request.
    var requested = false
    /// The upstream has completed: its completion is on its way, nothing more is taken from it.
    var upstreamCompleted = false
    /// The downstream has its completion (or it is on its way to it), or has cancelled.
    var ended = false

    /// Subscribed, and neither completed nor ended.
    var isLive: Bool { upstream.subscription != nil && !upstreamCompleted && !ended }
}
