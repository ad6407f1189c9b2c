/// A scheduler for performing synchronous actions.
///
/// ```swift
/// subject.receive(on: ImmediateScheduler.shared)
/// ```
public struct ImmediateScheduler: Scheduler, Sendable {
    /// The time type used by the immediate scheduler: a step counter that never advances.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The increment by which the immediate scheduler counts time.
        public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable,
            SchedulerTimeIntervalConvertible, Sendable
        {
            /// The value of this time interval in seconds.
            public var magnitude: Int

            /// Creates an immediate scheduler time interval from the given value.
            public init(_ value: Int) { magnitude = value }
            /// Creates an immediate scheduler time interval from an integer literal.
            public init(integerLiteral value: Int) { magnitude = value }
            /// Creates an immediate scheduler time interval from a floating-point literal.
            public init(floatLiteral value: Double) { magnitude = Int(value) }
            /// Creates an immediate scheduler time interval from a binary integer, if it fits.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
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

            // NB: as Combine's, time does not pass on the immediate scheduler: every interval of time is zero.

            /// No time: zero.
            public static func seconds(_ s: Int) -> Stride { 0 }
            /// No time: zero.
            public static func seconds(_ s: Double) -> Stride { 0 }
            /// No time: zero.
            public static func milliseconds(_ ms: Int) -> Stride { 0 }
            /// No time: zero.
            public static func microseconds(_ us: Int) -> Stride { 0 }
            /// No time: zero.
            public static func nanoseconds(_ ns: Int) -> Stride { 0 }
        }

        private let step: Int

        init(step: Int) { self.step = step }

        /// No distance: the immediate scheduler's time never moves, as Combine's.
        public func distance(to other: SchedulerTimeType) -> Stride { 0 }
        /// The same time: the immediate scheduler's time never moves, as Combine's.
        public func advanced(by n: Stride) -> SchedulerTimeType { self }
    }

    /// Options for the immediate scheduler: there are none.
    public typealias SchedulerOptions = Never

    /// The shared instance of the immediate scheduler.
    public static let shared = ImmediateScheduler()

    /// The immediate scheduler's definition of the current moment in time.
    public var now: SchedulerTimeType { SchedulerTimeType(step: 0) }
    /// The minimum tolerance allowed by the immediate scheduler.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// Performs the action now.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) { action() }

    /// Performs the action now, ignoring the date.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        action()
    }

    /// Performs the action once, now; repeating makes no sense for a synchronous scheduler. Returns the empty
    /// subscription ("Empty"), as Combine's, since there is nothing to cancel.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        action()
        return Subscriptions.empty
    }
}
