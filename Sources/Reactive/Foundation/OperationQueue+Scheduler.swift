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

    /// Adds the action to the queue at once, as an operation that becomes ready at the date (Combine's way: the
    /// queue holds it meanwhile, and a queue subclass sees it added).
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let operation = DelayedOperation(action: action)
        addOperation(operation)
        operation.becomeReady(at: date.date)
    }

    /// Adds the action to the queue repeatedly, starting after the specified date: one operation at a time, the
    /// next added when one runs, each ready one interval after the one before.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        let schedule = RepeatingOperations(queue: self, first: date.date, interval: interval.magnitude)
        schedule.addNext(action)
        return AnyCancellable(schedule)
    }
}
