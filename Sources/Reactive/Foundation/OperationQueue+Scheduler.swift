public import Foundation

extension OperationQueue: Scheduler {
    /// Options that affect the operation of the operation queue scheduler: there are none.
    public struct SchedulerOptions: Sendable {}

    /// The operation queue scheduler's definition of the current moment in time.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// The operation queue scheduler's minimum tolerance.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// Adds the action to the queue as an operation.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        // NB: Apple's signature has no @Sendable; the queue runs the operation once.
        nonisolated(unsafe) let action = action
        addOperation(BlockOperation { action() })
    }

    /// Adds the action to the queue at some time after the specified date.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        // NB: Apple's signature has no @Sendable; the queue runs the operation once.
        nonisolated(unsafe) let action = action
        let queue = self
        let delay = Swift.max(0, date.date.timeIntervalSinceNow)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { queue.addOperation { action() } }
    }

    /// Adds the action to the queue repeatedly, starting after the specified date.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        // NB: Apple's signature has no @Sendable; each tick adds one operation to the queue.
        nonisolated(unsafe) let action = action
        let queue = self
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler { queue.addOperation { action() } }
        let delay = Swift.max(0, date.date.timeIntervalSinceNow)
        timer.schedule(
            deadline: .now() + delay, repeating: interval.magnitude,
            leeway: .nanoseconds(Int(tolerance.magnitude * 1e9))
        )
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }
}
