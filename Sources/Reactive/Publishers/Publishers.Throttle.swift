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

/// Combine's throttle, as OpenCombine's suite records it: the scheduler's clock is read when the subscriber is
/// made, at the subscription and at each event; a value that finds no downstream demand is dropped; otherwise it
/// is scheduled at once if the last emission is at least `interval` ago (else for that moment), and values
/// arriving while one waits replace it (`latest`) or are dropped. A completion waits behind a scheduled value.
// NB: the scheduled actions hold the object weakly, as Combine's, so a cancelled throttle goes away at once.
private final class ThrottleInner<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>: Subscriber,
    Subscription, CombineDescribed, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    // NB: @unchecked Sendable: all mutable state is behind one Mutex; the scheduler is used as the caller's.
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let interval: Context.SchedulerTimeType.Stride
    private let scheduler: Context
    private let latest: Bool
    private let state: Mutex<ThrottleState<Upstream, Context, Downstream>>
    var combineName: String { "Throttle" }

    init(downstream: Downstream, publisher: Publishers.Throttle<Upstream, Context>) {
        interval = publisher.interval
        scheduler = publisher.scheduler
        latest = publisher.latest
        state = Mutex(ThrottleState(status: .awaiting(downstream), lastTime: publisher.scheduler.now))
    }

    func receive(subscription: any Subscription) {
        let now = scheduler.now
        let taken = state.withLock { state -> ThrottleTaken<Downstream, Input, Failure>? in
            guard case .awaiting(let downstream) = state.status else { return nil }
            state.lastTime = now
            state.status = .subscribed(subscription, downstream)
            return ThrottleTaken(downstream: downstream)
        }
        guard let taken else { return subscription.cancel() }
        subscription.request(.unlimited)
        taken.downstream.receive(subscription: self)
    }

    /// Whether the upstream is live, checked before reading the clock, which Combine reads only then.
    private var isSubscribed: Bool {
        state.withLock { if case .subscribed = $0.status { true } else { false } }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        guard isSubscribed else { return .none }
        let now = scheduler.now
        let emission = state.withLock { state -> ThrottleEmission<Context.SchedulerTimeType> in
            guard case .subscribed = state.status else { return .none }
            state.lastTime = now
            guard state.demand > 0 else { return .none }
            if state.pendingInput != nil || state.pendingCompletion != nil {
                if latest, state.pendingInput != nil { state.pendingInput = input }
                return .none
            }
            state.demand -= 1
            state.pendingInput = input
            guard let last = state.lastEmission, last.advanced(by: interval) > now else { return .now }
            return .at(last.advanced(by: interval))
        }
        switch emission {
        case .none: break
        case .now: scheduler.schedule { [weak self] in self?.emit() }
        case .at(let time): scheduler.schedule(after: time) { [weak self] in self?.emit() }
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard isSubscribed else { return }
        let now = scheduler.now
        let scheduleNow = state.withLock { state -> Bool in
            guard case .subscribed(let subscription, let downstream) = state.status else { return false }
            state.lastTime = now
            state.status = .pendingTerminal(subscription, downstream)
            guard state.pendingCompletion == nil else { return false }
            state.pendingCompletion = completion
            return state.pendingInput == nil
        }
        if scheduleNow { scheduler.schedule { [weak self] in self?.emit() } }
    }

    /// Sends what waits (a value, then a completion), from the scheduler.
    private func emit() {
        let emitsValue = state.withLock { state -> Bool in
            switch state.status {
            case .subscribed, .pendingTerminal: return state.pendingInput != nil && state.pendingCompletion == nil
            case .awaiting, .terminal: return false
            }
        }
        // NB: the clock is read only for a value's emission, as Combine's.
        let now = emitsValue ? scheduler.now : nil
        let taken = state.withLock { state -> ThrottleTaken<Downstream, Input, Failure>? in
            let downstream: Downstream
            switch state.status {
            case .subscribed(_, let live), .pendingTerminal(_, let live): downstream = live
            case .awaiting, .terminal: return nil
            }
            if let now, state.pendingInput != nil, state.pendingCompletion == nil { state.lastEmission = now }
            defer {
                state.pendingInput = nil
                state.pendingCompletion = nil
            }
            if state.pendingCompletion != nil { state.status = .terminal }
            return ThrottleTaken(downstream: downstream, input: state.pendingInput, completion: state.pendingCompletion)
        }
        guard let taken else { return }
        let more = taken.input.map { taken.downstream.receive($0) } ?? .none
        if let completion = taken.completion { taken.downstream.receive(completion: completion) }
        if more > 0 { state.withLock { $0.demand += more } }
    }

    func request(_ demand: Subscribers.Demand) {
        // NB: as Combine's, a request of zero is ignored rather than a trap.
        guard demand > 0 else { return }
        state.withLock { state in
            if case .subscribed = state.status { state.demand += demand }
        }
    }

    func cancel() {
        state.withLock { state -> (any Subscription)? in
            defer { state.status = .terminal }
            switch state.status {
            case .subscribed(let subscription, _), .pendingTerminal(let subscription, _): return subscription
            case .awaiting, .terminal: return nil
            }
        }?.cancel()
    }
}

/// Where a throttle stands, and what waits for the scheduler.
// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct ThrottleState<Upstream: Publisher, Context: Scheduler, Downstream: Subscriber>: @unchecked Sendable {
    enum Status {
        case awaiting(Downstream)
        case subscribed(any Subscription, Downstream)
        /// The upstream has completed; the completion waits for the scheduler.
        case pendingTerminal(any Subscription, Downstream)
        case terminal
    }

    var status: Status
    /// When the clock was last read for an event (kept as Combine's does; nothing decides by it).
    var lastTime: Context.SchedulerTimeType
    var lastEmission: Context.SchedulerTimeType?
    var pendingInput: Upstream.Output?
    var pendingCompletion: Subscribers.Completion<Upstream.Failure>?
    var demand = Subscribers.Demand.none
}

/// What a value's arrival asks of the scheduler.
// NB: @unchecked Sendable: it carries a time out of the lock to the one thread that schedules it.
private enum ThrottleEmission<Time>: @unchecked Sendable {
    case none
    case now
    case at(Time)
}

/// The downstream and what to send it, taken out of the lock.
// NB: @unchecked Sendable: it carries them out of the lock to the one thread that sends them.
private struct ThrottleTaken<Downstream, Input, Failure: Error>: @unchecked Sendable {
    var downstream: Downstream
    var input: Input?
    var completion: Subscribers.Completion<Failure>?
}
