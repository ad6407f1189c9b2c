package import Dispatch
package import Reactive

/// The event loop a connection lives on, as the code above the C wrapper sees it: a `Scheduler` for
/// per-connection work (`receive(on: stream.loop)`), and a hand-over of work from any thread.
///
/// `LibEvent.EventLoop` is the one real loop; code that only schedules work takes `any RequestLoop`.
///
/// ```swift
/// stream.loop.execute { stream.write(bytes) }  // from any thread, runs on the connection's loop
/// ```
package protocol RequestLoop: AnyObject, Sendable, Scheduler
where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == Never {
    /// Whether the caller runs on this loop's thread.
    var inLoop: Bool { get }
    /// Runs `work` on the loop soon, in order of submission; from any thread.
    func execute(_ work: @escaping @Sendable () -> Void)
}
