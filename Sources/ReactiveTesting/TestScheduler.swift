public import Reactive
import Synchronization

/// A scheduler whose clock moves only when the test says so: `advance(by:)` runs every action due by the new
/// time, in time order (ties in the order scheduled); `run()` runs everything scheduled, including actions
/// scheduled by those actions.
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// let cancellable = subject.debounce(for: .milliseconds(300), scheduler: scheduler).sink { print($0) }
/// subject.send("swi")
/// scheduler.advance(by: .milliseconds(300))   // prints "swi"
/// ```
// NB: @unchecked Sendable: all state is behind one Mutex; actions run outside it, on the advancing thread.
public final class TestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
    private let state: Mutex<TestSchedulerState<SchedulerTimeType>>

    /// Creates a test scheduler whose clock starts at `now`.
    public init(now: SchedulerTimeType) {
        state = Mutex(TestSchedulerState(now: now))
    }

    /// The virtual current time.
    public var now: SchedulerTimeType { state.withLock { $0.now } }

    /// The virtual scheduler has no tolerance.
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// The number of actions waiting to run.
    public var pendingCount: Int { state.withLock { $0.queue.count } }

    /// Moves the clock forward by `stride`, running every action due by then.
    public func advance(by stride: SchedulerTimeType.Stride = .zero) {
        advance(to: now.advanced(by: stride))
    }

    /// Moves the clock to `instant` (never backwards), running every action due by then.
    public func advance(to instant: SchedulerTimeType) {
        while let action = state.withLock({ $0.takeNext(dueBy: instant) }) {
            action.run()
        }
        state.withLock { state in
            if state.now < instant { state.now = instant }
        }
    }

    /// Runs every scheduled action, moving the clock to each one's time, until nothing is left. Repeating
    /// actions would never end: cancel them first.
    public func run() {
        while let action = state.withLock({ $0.takeNext(dueBy: nil) }) {
            action.run()
        }
    }

    /// Schedules the action at the current virtual time (it runs on the next `advance` or `run`).
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        state.withLock { $0.enqueue(at: $0.now, action) }
    }

    /// Schedules the action at `date` in virtual time.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        state.withLock { $0.enqueue(at: date, action) }
    }

    /// Schedules the action at `date` and every `interval` after, until cancelled.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        let id = state.withLock { $0.reserveID() }
        // NB: the repeating body re-enqueues itself under the same id so that cancel removes whichever
        // occurrence is pending.
        nonisolated(unsafe) var tick: (() -> Void)?
        tick = { [weak self] in
            action()
            guard let self, let tick else { return }
            self.state.withLock { state in
                if !state.cancelled.contains(id) { state.enqueue(at: state.now.advanced(by: interval), id: id, tick) }
            }
        }
        state.withLock { $0.enqueue(at: date, id: id, tick!) }
        return AnyCancellable { [weak self] in
            tick = nil
            self?.state.withLock { $0.cancel(id) }
        }
    }
}

/// Scheduled actions by time; an action's id orders ties and lets a repeating action be cancelled.
// NB: @unchecked Sendable: it only lives inside its scheduler's Mutex.
private struct TestSchedulerState<Time: Strideable>: @unchecked Sendable {
    var now: Time
    var queue: [(id: Int, date: Time, action: () -> Void)] = []
    var cancelled: Set<Int> = []
    var lastID = 0

    init(now: Time) { self.now = now }

    mutating func reserveID() -> Int {
        lastID += 1
        return lastID
    }

    mutating func enqueue(at date: Time, id: Int? = nil, _ action: @escaping () -> Void) {
        queue.append((id ?? reserveID(), date, action))
    }

    mutating func cancel(_ id: Int) {
        cancelled.insert(id)
        queue.removeAll { $0.id == id }
    }

    /// Removes and returns the earliest action due by `limit` (any action if nil), advancing the clock to it.
    mutating func takeNext(dueBy limit: Time?) -> ScheduledAction? {
        var best: Int?
        for index in queue.indices {
            if let limit, queue[index].date > limit { continue }
            if let current = best {
                let (a, b) = (queue[index], queue[current])
                if a.date < b.date || (a.date == b.date && a.id < b.id) { best = index }
            } else {
                best = index
            }
        }
        guard let best else { return nil }
        let item = queue.remove(at: best)
        if now < item.date { now = item.date }
        return ScheduledAction(run: item.action)
    }
}

/// An action taken out of the queue, to run outside the lock.
// NB: @unchecked Sendable: Apple's action signature has no @Sendable; it runs on the advancing thread.
private struct ScheduledAction: @unchecked Sendable {
    let run: () -> Void
}
