public import Foundation

/// What the run loop's and the operation queue's scheduler times have in common (each is its own type, as in
/// Combine): a date, advanced by strides of seconds. Public only because the two public types conform.
public protocol _DateSchedulerTime: Strideable, Codable, Hashable, Sendable where Stride: _DateSchedulerStride {
    /// The date represented by this time.
    var date: Date { get }
    /// Creates a scheduler time for the given date.
    init(_ date: Date)
}

extension _DateSchedulerTime {
    /// Returns the distance to another scheduler time.
    public func distance(to other: Self) -> Stride { Stride(other.date.timeIntervalSince(date)) }

    /// Returns the scheduler time reached by advancing this one by the given interval.
    public func advanced(by n: Stride) -> Self { Self(date.addingTimeInterval(n.magnitude)) }
}

/// An interval between two date-based scheduler times, in seconds.
public protocol _DateSchedulerStride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable, Hashable,
    SchedulerTimeIntervalConvertible, Sendable
where FloatLiteralType == Double, IntegerLiteralType == Int, Magnitude == TimeInterval {
    /// The value of this time interval in seconds.
    var magnitude: TimeInterval { get set }
    /// Creates a time interval from the given number of seconds.
    init(_ timeInterval: TimeInterval)
}

extension _DateSchedulerStride {
    /// The value of this time interval in seconds.
    public var timeInterval: TimeInterval { magnitude }

    /// Creates a time interval from an integer literal of seconds.
    public init(integerLiteral value: Int) { self.init(TimeInterval(value)) }
    /// Creates a time interval from a floating-point literal of seconds.
    public init(floatLiteral value: Double) { self.init(value) }
    /// Creates a time interval from a binary integer of seconds, if exactly representable.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = TimeInterval(exactly: source) else { return nil }
        self.init(value)
    }

    /// Orders two intervals.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.magnitude < rhs.magnitude }
    /// Multiplies two intervals.
    public static func * (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude * rhs.magnitude) }
    /// Adds two intervals.
    public static func + (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude + rhs.magnitude) }
    /// Subtracts two intervals.
    public static func - (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude - rhs.magnitude) }
    /// Subtracts an interval in place.
    public static func -= (lhs: inout Self, rhs: Self) { lhs = lhs - rhs }
    /// Multiplies an interval in place.
    public static func *= (lhs: inout Self, rhs: Self) { lhs = lhs * rhs }
    /// Adds an interval in place.
    public static func += (lhs: inout Self, rhs: Self) { lhs = lhs + rhs }

    /// An interval of whole seconds.
    public static func seconds(_ s: Int) -> Self { Self(TimeInterval(s)) }
    /// An interval of seconds.
    public static func seconds(_ s: Double) -> Self { Self(s) }
    /// An interval of milliseconds.
    public static func milliseconds(_ ms: Int) -> Self { Self(TimeInterval(ms) / 1_000) }
    /// An interval of microseconds.
    public static func microseconds(_ us: Int) -> Self { Self(TimeInterval(us) / 1_000_000) }
    /// An interval of nanoseconds.
    public static func nanoseconds(_ ns: Int) -> Self { Self(TimeInterval(ns) / 1_000_000_000) }
}

extension RunLoop {
    /// The scheduler time type used by the run loop.
    public struct SchedulerTimeType: _DateSchedulerTime {
        /// The date represented by this type.
        public var date: Date

        /// Initializes a run loop scheduler time with the given date.
        public init(_ date: Date) { self.date = date }

        /// The interval by which run loop times advance, in seconds.
        public struct Stride: _DateSchedulerStride {
            /// The value of this time interval in seconds.
            public var magnitude: TimeInterval

            /// Creates a run loop time interval from the given time interval in seconds.
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
        }
    }
}

extension OperationQueue {
    /// The scheduler time type used by the operation queue.
    public struct SchedulerTimeType: _DateSchedulerTime {
        /// The date represented by this type.
        public var date: Date

        /// Initializes an operation queue scheduler time with the given date.
        public init(_ date: Date) { self.date = date }

        /// The interval by which operation queue times advance, in seconds.
        public struct Stride: _DateSchedulerStride {
            /// The value of this time interval in seconds.
            public var magnitude: TimeInterval

            /// Creates an operation queue time interval from the given time interval in seconds.
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
        }
    }
}
