import CEvent
package import Foundation
import Support
import Synchronization

/// One libevent `event_base` and the thread that runs it.
///
/// Everything that touches the base runs on that thread; other threads hand work over with
/// `execute(_:)` (a locked queue plus `event_active` on a wake-up event).
///
/// ```swift
/// let loop = try EventLoop(name: "http-0")
/// loop.execute { print(loop.inLoop) }  // true
/// ```
package final class EventLoop: @unchecked Sendable {
    // NB: @unchecked because `base` and `wakeEvent` are only used on the loop's thread, or through
    // libevent calls that are thread-safe once `evthread_use_pthreads()` ran (event_active, loopexit).

    /// Work handed over from other threads; drained on the loop.
    private struct Pending {
        var jobs: [Job] = []
        var stopped = false
    }

    /// A readable name for logs and the thread.
    package let name: String
    /// The `event_base *` (for the other owners in this folder).
    let base: OpaquePointer
    private var wakeEvent: OpaquePointer?
    private let pending = Mutex(Pending())
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// Makes libevent thread-aware; must happen before the first `event_base_new`.
    private static let threadsEnabled: Bool = evthread_use_pthreads() == 0

    /// Creates the base; `run()` starts its thread.
    package init(name: String) throws(LibEventError) {
        guard Self.threadsEnabled else { throw LibEventError("evthread_use_pthreads failed") }
        guard let base = Self.makeBase() else { throw LibEventError("event_base_new failed") }
        self.name = name
        self.base = base
        let wake = event_new(
            base, -1, 0,
            { _, _, context in
                Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().drain()
            }, Unmanaged.passUnretained(self).toOpaque())
        guard let wake else {
            event_base_free(base)
            throw LibEventError("event_new failed")
        }
        wakeEvent = wake
    }

    /// A base whose epoll changes are batched per loop turn (`EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST`): evhttp
    /// turns reading off and writing on for each response, then back, four `epoll_ctl` calls per request
    /// that the changelist folds into at most two (about a sixth less server CPU per `GET /todos`).
    ///
    /// NB: libevent warns that the changelist is unsafe with `dup()`ed descriptors: a removal deferred past
    /// the close of a descriptor whose file another descriptor keeps open leaves the file in the epoll
    /// set, ready on every turn. Nothing here duplicates a watched descriptor; the lingering close takes
    /// the connection's own socket over from evhttp instead (`ConnectionGuard.closed`).
    private static func makeBase() -> OpaquePointer? {
        guard let config = event_config_new() else { return nil }
        defer { event_config_free(config) }
        event_config_set_flag(config, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        return event_base_new_with_config(config)
    }

    deinit {
        if let wakeEvent { event_free(wakeEvent) }
        event_base_free(base)
    }

    /// Whether the caller runs on this loop's thread.
    package var inLoop: Bool {
        threadID.load(ordering: .acquiring) == UInt(pthread_self())
    }

    /// Starts the loop on its own thread. The loop keeps running with no events until `stop()`.
    package func run() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            ThreadName.setCurrent(name)
            threadID.store(UInt(pthread_self()), ordering: .releasing)
            // Work queued before the thread started.
            drain()
            event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
            drain()
            threadID.store(0, ordering: .releasing)
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs `work` on the loop soon (in order of submission); from any thread.
    ///
    /// Work submitted after `stop()` is dropped.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        enqueue(work)
    }

    /// `execute` without the `Sendable` check, for scheduler actions (Combine's signature has none).
    func enqueue(_ work: @escaping () -> Void) {
        let wakes = pending.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.jobs.append(Job(run: work))
            return state.jobs.count == 1
        }
        // NB: only the job that finds the queue empty wakes the loop: the others are taken by the drain that
        // wake-up runs (it empties the queue until it stays empty). event_active takes the base's lock, which
        // the loop holds for most of its turn, so a burst of jobs (the replies and live versions of a group
        // commit) waking it once each made the threads queue on that lock. event_active from another thread
        // is safe because evthread_use_pthreads() ran first.
        if wakes, let wakeEvent { event_active(wakeEvent, EV_READ, 0) }
    }

    /// Runs `work` now if on the loop, else hands it over.
    func executeNowOrLater(_ work: @escaping @Sendable () -> Void) {
        if inLoop { work() } else { execute(work) }
    }

    /// Calls `work` once after `delay` seconds on the loop; the returned timer cancels it.
    @discardableResult
    package func schedule(after delay: Double, _ work: @escaping @Sendable () -> Void) -> LoopTimer {
        let timer = LoopTimer(loop: self, interval: nil, action: work)
        timer.arm(after: delay)
        return timer
    }

    /// Calls `work` every `interval` seconds (first after `delay`) until the timer is cancelled.
    @discardableResult
    package func schedule(after delay: Double, repeating interval: Double, _ work: @escaping @Sendable () -> Void)
        -> LoopTimer
    {
        let timer = LoopTimer(loop: self, interval: interval, action: work)
        timer.arm(after: delay)
        return timer
    }

    /// Stops the loop after the work already queued, and waits for its thread (unless called on it).
    package func stop() {
        stop(waitingUntil: .distantFuture)
    }

    /// Stops the loop after the work already queued, and waits for its thread until `deadline`.
    ///
    /// Returns whether the thread has finished (true also when called on the loop itself or before `run`);
    /// false means a callback was still running at the deadline: the loop ends when it returns.
    @discardableResult
    package func stop(waitingUntil deadline: DispatchTime) -> Bool {
        pending.withLock { $0.stopped = true }
        // NB: loopexit (not loopbreak) lets the callbacks already active run first.
        event_base_loopexit(base, nil)
        guard started.load(ordering: .acquiring) && !inLoop else { return true }
        guard finished.wait(timeout: deadline) == .success else { return false }
        finished.signal()
        return true
    }

    private func drain() {
        while true {
            let jobs = pending.withLock { state -> [Job] in
                let jobs = state.jobs
                state.jobs = []
                return jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job.run() }
        }
    }
}

/// A closure queued for the loop.
private struct Job: @unchecked Sendable {
    // NB: @unchecked because scheduler actions are not `@Sendable` in Combine's API; the job runs once,
    // on the loop's thread, after the queue's lock handed it over.
    let run: () -> Void
}

/// A failure reported by a libevent call.
package struct LibEventError: Error, CustomStringConvertible {
    /// What failed.
    package var description: String

    package init(_ description: String) {
        self.description = description
    }
}
