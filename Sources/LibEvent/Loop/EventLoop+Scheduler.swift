package import Dispatch
import HTTP
package import Reactive

/// `receive(on: loop)` and `debounce(for:scheduler: loop)` run on the loop's thread.
///
/// Times are `DispatchQueue`'s (monotonic uptime nanoseconds), so intervals read the same everywhere.
extension EventLoop: Scheduler {
    package typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
    package typealias SchedulerOptions = Never

    package var now: SchedulerTimeType { SchedulerTimeType(DispatchTime.now()) }

    package var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// Queues `action` behind the work already queued (never runs it inline, even on the loop).
    package func schedule(options: Never?, _ action: @escaping () -> Void) {
        enqueue(action)
    }

    /// Runs `action` once on the loop when `date` has come.
    package func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Never?,
        _ action: @escaping () -> Void
    ) {
        // NB: Combine's signature has no @Sendable; the timer runs the action once, on the loop's thread.
        nonisolated(unsafe) let action = action
        schedule(after: Self.seconds(until: date)) { action() }
    }

    /// Runs `action` on the loop from `date` on, every `interval`, until the result is cancelled.
    package func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: Never?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        // NB: Combine's signature has no @Sendable; the timer runs the action on the loop's thread only.
        nonisolated(unsafe) let action = action
        let timer = schedule(
            after: Self.seconds(until: date), repeating: Double(max(interval.magnitude, 1)) / 1e9
        ) { action() }
        return AnyCancellable { timer.cancel() }
    }

    private static func seconds(until date: SchedulerTimeType) -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        let target = date.dispatchTime.uptimeNanoseconds
        return target > now ? Double(target - now) / 1e9 : 0
    }
}

extension EventLoop: RequestLoop {}
