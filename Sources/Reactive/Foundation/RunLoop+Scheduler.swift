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

    /// Whether actions must go to the stand-in queue: this is the main run loop and nobody is running it.
    // NB: on Linux servers and under `swift test` the main thread never runs its run loop, so work scheduled on
    // `RunLoop.main` would never run; it goes to a serial queue instead (same order, one at a time, off the main
    // thread). A main run loop that is running gets the work itself.
    private var usesStandIn: Bool { self === RunLoop.main && currentMode == nil }

    /// Performs the action on the run loop's next pass (see `usesStandIn` for an idle main run loop).
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        // NB: Apple's signature has no @Sendable; the run loop runs the action once, on its own thread.
        nonisolated(unsafe) let action = action
        if usesStandIn {
            mainRunLoopStandIn.async { action() }
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
        if usesStandIn {
            let delay = Swift.max(0, date.date.timeIntervalSinceNow)
            mainRunLoopStandIn.asyncAfter(deadline: .now() + delay) { action() }
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
        let timer = Timer(fire: date.date, interval: interval.magnitude, repeats: true) { _ in action() }
        timer.tolerance = tolerance.magnitude
        add(timer, forMode: .default)
        nonisolated(unsafe) let unsafeTimer = timer
        return AnyCancellable { unsafeTimer.invalidate() }
    }
}

/// Runs work scheduled on a main run loop that nobody runs (see `RunLoop.usesStandIn`).
private let mainRunLoopStandIn = DispatchQueue(label: "Reactive.RunLoop.main")
