public import Dispatch
public import Reactive

/// A test scheduler with the same time and option types as the scheduler `S` it stands in for.
///
/// ```swift
/// let scheduler: TestSchedulerOf<DispatchQueue> = DispatchQueue.test
/// ```
public typealias TestSchedulerOf<S: Scheduler> = TestScheduler<S.SchedulerTimeType, S.SchedulerOptions>

extension DispatchQueue {
    /// A test scheduler with `DispatchQueue`'s time types, starting at uptime 1 ns.
    ///
    /// ```swift
    /// let viewModel = SearchViewModel(scheduler: DispatchQueue.test)
    /// ```
    public static var test: TestSchedulerOf<DispatchQueue> {
        TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }
}
