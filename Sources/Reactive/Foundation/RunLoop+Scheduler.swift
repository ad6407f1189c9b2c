public import Foundation

extension RunLoop: Scheduler {
    /// Options that affect the operation of the run loop scheduler: there are none.
    public struct SchedulerOptions: Sendable {}

    /// The run loop scheduler's definition of the current moment in time.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// The run loop scheduler's minimum tolerance.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// Whether this is the main run loop, whose work goes through the main dispatch queue.
    // NB: on Linux the main run loop drains the main dispatch queue whenever it runs (an XCTest `wait(for:)`, a
    // server's main thread running `RunLoop.main`), and so does `dispatchMain()` (an async `main`, the Swift
    // Testing runner). Sending the main run loop's work through the main queue makes it run on the main thread
    // in both cases, as on Apple, where nothing else would ever run it.
    private var isMain: Bool { self === RunLoop.main }

    /// Performs the action on the run loop's next pass (on the main thread for `RunLoop.main`).
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        // NB: Apple's signature has no @Sendable; the run loop runs the action once, on its own thread.
        nonisolated(unsafe) let action = action
        if isMain {
            DispatchQueue.main.async { action() }
        } else {
            perform { action() }
        }
    }

    /// Performs the action on the run loop at some time after the specified date.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        // NB: Apple's signature has no @Sendable; the timer fires once, on the run loop's thread.
        nonisolated(unsafe) let action = action
        if isMain {
            let delay = Swift.max(0, date.date.timeIntervalSinceNow)
            DispatchQueue.main.asyncAfter(deadline: .now() + delay) { action() }
            return
        }
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in action() }
        timer.tolerance = tolerance.magnitude
        add(timer, forMode: .default)
    }

    /// Performs the action on the run loop repeatedly, starting after the specified date.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        // NB: Apple's signature has no @Sendable; the timer fires on the run loop's thread.
        nonisolated(unsafe) let action = action
        if isMain {
            let source = DispatchSource.makeTimerSource(queue: .main)
            let delay = Swift.max(0, date.date.timeIntervalSinceNow)
            source.schedule(
                deadline: .now() + delay, repeating: Swift.max(interval.magnitude, 0.000_001),
                leeway: .nanoseconds(Int(tolerance.magnitude * 1e9)))
            source.setEventHandler { action() }
            source.resume()
            return AnyCancellable { source.cancel() }
        }
        let timer = Timer(fire: date.date, interval: interval.magnitude, repeats: true) { _ in action() }
        timer.tolerance = tolerance.magnitude
        add(timer, forMode: .default)
        nonisolated(unsafe) let unsafeTimer = timer
        return AnyCancellable { unsafeTimer.invalidate() }
    }
}
