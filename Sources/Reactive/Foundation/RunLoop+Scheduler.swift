public import Foundation

extension RunLoop: Scheduler {
    /// The scheduler time type used by the run loop (and the operation queue).
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The date represented by this type.
        public var date: Date

        /// Initializes a run loop scheduler time with the given date.
        public init(_ date: Date) { self.date = date }

        /// Returns the distance to another run loop scheduler time.
        public func distance(to other: SchedulerTimeType) -> Stride { Stride(other.date.timeIntervalSince(date)) }

        /// Returns a run loop scheduler time calculated by advancing this instance's time by the given interval.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(date.addingTimeInterval(n.magnitude))
        }

        /// The interval by which run loop times advance, in seconds.
        public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
            SchedulerTimeIntervalConvertible, Sendable
        {
            /// The value of this time interval in seconds.
            public var magnitude: TimeInterval

            /// The value of this time interval in seconds.
            public var timeInterval: TimeInterval { magnitude }

            /// Creates a run loop time interval from the given time interval in seconds.
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
            /// Creates a run loop time interval from an integer literal of seconds.
            public init(integerLiteral value: Int) { magnitude = TimeInterval(value) }
            /// Creates a run loop time interval from a floating-point literal of seconds.
            public init(floatLiteral value: Double) { magnitude = value }
            /// Creates a run loop time interval from a binary integer of seconds, if exactly representable.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = TimeInterval(exactly: source) else { return nil }
                magnitude = value
            }

            /// Orders two intervals.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// Multiplies two intervals.
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }
            /// Adds two intervals.
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }
            /// Subtracts two intervals.
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }
            /// Subtracts an interval in place.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies an interval in place.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            /// Adds an interval in place.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// An interval of whole seconds.
            public static func seconds(_ s: Int) -> Stride { Stride(TimeInterval(s)) }
            /// An interval of seconds.
            public static func seconds(_ s: Double) -> Stride { Stride(s) }
            /// An interval of milliseconds.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(TimeInterval(ms) / 1_000) }
            /// An interval of microseconds.
            public static func microseconds(_ us: Int) -> Stride { Stride(TimeInterval(us) / 1_000_000) }
            /// An interval of nanoseconds.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(TimeInterval(ns) / 1_000_000_000) }
        }
    }

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
