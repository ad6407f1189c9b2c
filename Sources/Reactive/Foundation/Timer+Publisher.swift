public import Foundation
import Synchronization

extension Timer {
    /// Returns a publisher that repeatedly emits the current date on the given interval, once connected; as
    /// Combine's, the publisher does not keep the tolerance.
    ///
    /// ```swift
    /// Timer.publish(every: 1, on: .main, in: .common).autoconnect().sink { print($0) }
    /// ```
    public static func publish(
        every interval: TimeInterval, tolerance: TimeInterval? = nil, on runLoop: RunLoop, in mode: RunLoop.Mode,
        options: RunLoop.SchedulerOptions? = nil
    ) -> TimerPublisher {
        // NB: Combine's publisher does not keep the tolerance given here (its `tolerance` is nil), as
        // OpenCombine's suite records; `TimerPublisher(interval:tolerance:…)` keeps it.
        TimerPublisher(interval: interval, tolerance: nil, runLoop: runLoop, mode: mode, options: options)
    }

    /// A publisher that repeatedly emits the current date on a given interval, from `connect()` until the
    /// connection is cancelled. The dates arrive on the run loop's thread, while it runs in `mode`.
    // NB: @unchecked Sendable: the timer slot is Mutex-guarded; the subject is thread-safe.
    public final class TimerPublisher: ConnectablePublisher, @unchecked Sendable {
        /// The current date at each tick.
        public typealias Output = Date
        /// This publisher never fails.
        public typealias Failure = Never

        /// The interval between ticks.
        public let interval: TimeInterval
        /// The timer's tolerance, if any.
        public let tolerance: TimeInterval?
        /// The run loop the timer runs on.
        public let runLoop: RunLoop
        /// The run loop mode the timer runs in.
        public let mode: RunLoop.Mode
        /// Scheduler options (none exist for run loops).
        public let options: RunLoop.SchedulerOptions?

        private let ticks = PassthroughSubject<Date, Never>()
        private let timer = Mutex<ScheduledTimer?>(nil)

        /// Creates a publisher that emits the current date on the given interval.
        public init(
            interval: TimeInterval, tolerance: TimeInterval? = nil, runLoop: RunLoop, mode: RunLoop.Mode,
            options: RunLoop.SchedulerOptions? = nil
        ) {
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
        }

        /// Starts the timer (once; a second connect returns the same connection's cancel).
        public func connect() -> any Cancellable {
            let ticks = ticks
            let fresh = Timer(timeInterval: interval, repeats: true) { _ in ticks.send(Date()) }
            if let tolerance { fresh.tolerance = tolerance }
            let slot = ScheduledTimer(timer: fresh)
            let started = timer.withLock { current -> Bool in
                guard current == nil else { return false }
                current = slot
                return true
            }
            if started { runLoop.add(fresh, forMode: mode) }
            return AnyCancellable { [weak self] in
                self?.timer.withLock { $0.take() }?.timer.invalidate()
            }
        }

        /// Attaches a subscriber to the ticks, through a subscription that, as Combine's, has no description or
        /// mirror of its own.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            ticks.receive(subscriber: TimerSubscription(downstream: subscriber))
        }
    }
}

/// A timer handed between threads: it is added to its run loop once and only invalidated afterwards.
// NB: @unchecked Sendable: Foundation's Timer is not Sendable on Linux; invalidate is safe from any thread.
private struct ScheduledTimer: @unchecked Sendable {
    let timer: Timer
}

/// A subscriber's link to a timer's ticks: it passes the ticks and their demand through, and the downstream's
/// requests and cancel to the ticks' subscription.
// NB: @unchecked Sendable: the subscription slot is Mutex-guarded; the downstream is called outside the lock.
private final class TimerSubscription<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
where Downstream.Input == Date, Downstream.Failure == Never {
    typealias Input = Date
    typealias Failure = Never

    private let downstream: Downstream
    private let status = Mutex(SubscriptionStatus.awaiting)

    init(downstream: Downstream) { self.downstream = downstream }

    func receive(subscription: any Subscription) {
        guard status.withLock({ $0.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Date) -> Subscribers.Demand { downstream.receive(input) }

    func receive(completion: Subscribers.Completion<Never>) { downstream.receive(completion: completion) }

    func request(_ demand: Subscribers.Demand) { status.withLock { $0.subscription }?.request(demand) }

    func cancel() { status.withLock { $0.terminate() }?.cancel() }
}
