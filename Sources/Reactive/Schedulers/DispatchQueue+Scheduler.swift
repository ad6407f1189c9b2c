public import Dispatch

extension DispatchQueue: Scheduler {
    /// The scheduler time type used by the dispatch queue.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time represented by this type.
        public var dispatchTime: DispatchTime

        /// Creates a dispatch queue time type instance.
        public init(_ time: DispatchTime) { dispatchTime = time }

        /// Returns the distance to another dispatch queue time.
        public func distance(to other: SchedulerTimeType) -> Stride {
            let start = dispatchTime.uptimeNanoseconds
            let end = other.dispatchTime.uptimeNanoseconds
            // NB: as Combine's, the distance to or from a time beyond `Int.max` nanoseconds (the far future) is
            // the largest stride, whichever way it goes.
            if start != end, max(start, end) > UInt64(Int.max) { return .nanoseconds(.max) }
            return .nanoseconds(
                end >= start ? Int(clamping: end - start) : -Int(clamping: start - end))
        }

        /// Returns a dispatch queue scheduler time calculated by advancing this instance's time by the given
        /// interval.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            // Saturates instead of trapping: `.seconds(Int.max)` from now is the far future, as in Combine.
            let start = dispatchTime.uptimeNanoseconds
            let step = UInt64(n.magnitude.magnitude)
            let nanos: UInt64
            if n.magnitude >= 0 {
                // NB: as Combine's (and `dispatch_time`), a time beyond `Int.max` nanoseconds is the far future.
                let (sum, overflow) = start.addingReportingOverflow(step)
                nanos = overflow || sum > UInt64(Int.max) ? DispatchTime.distantFuture.uptimeNanoseconds : sum
            } else {
                nanos = start > step ? start - step : 1
            }
            return SchedulerTimeType(DispatchTime(uptimeNanoseconds: nanos))
        }

        /// Hashes the time's nanosecond count.
        public func hash(into hasher: inout Hasher) { hasher.combine(dispatchTime.uptimeNanoseconds) }

        /// Compares two times.
        public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime == rhs.dispatchTime
        }

        /// Decodes a time from its uptime nanoseconds, a bare number as Combine encodes it.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            dispatchTime = DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self))
        }

        /// Encodes the time as its uptime nanoseconds, a bare number as Combine does.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        /// A type that represents the distance between two values, in nanoseconds.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Codable, Sendable
        {
            /// The value of this time interval in nanoseconds.
            public var magnitude: Int

            /// Combine's key: the name of its stored nanoseconds (`{"_nanoseconds": n}`).
            private enum CodingKeys: String, CodingKey { case magnitude = "_nanoseconds" }

            /// A `DispatchTimeInterval` created with the value of this type in nanoseconds.
            public var timeInterval: DispatchTimeInterval { .nanoseconds(magnitude) }

            /// Creates a dispatch queue time interval from a dispatch time interval.
            public init(_ timeInterval: DispatchTimeInterval) {
                magnitude = Stride.nanoseconds(of: timeInterval)
            }

            /// Creates a dispatch queue time interval from a floating-point seconds value.
            public init(floatLiteral value: Double) { magnitude = Stride.clamped(value * 1_000_000_000) }
            /// Creates a dispatch queue time interval from an integer seconds value.
            public init(integerLiteral value: Int) { magnitude = Stride.scaled(value, by: 1_000_000_000) }
            /// Creates a dispatch queue time interval from a binary integer of seconds, if it fits.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int(exactly: source) else { return nil }
                let (nanos, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                if overflow { return nil }
                magnitude = nanos
            }

            private init(nanoseconds: Int) { magnitude = nanoseconds }

            /// `value × unit` nanoseconds, saturating at `Int.max`/`Int.min` instead of trapping.
            private static func scaled(_ value: Int, by unit: Int) -> Int {
                let (product, overflow) = value.multipliedReportingOverflow(by: unit)
                return overflow ? (value < 0 ? .min : .max) : product
            }

            /// A floating-point nanosecond count as an `Int`, saturating (NaN is zero).
            private static func clamped(_ nanoseconds: Double) -> Int {
                if nanoseconds.isNaN { return 0 }
                if nanoseconds >= Double(Int.max) { return .max }
                if nanoseconds <= Double(Int.min) { return .min }
                return Int(nanoseconds)
            }

            private static func nanoseconds(of interval: DispatchTimeInterval) -> Int {
                switch interval {
                case .seconds(let s): scaled(s, by: 1_000_000_000)
                case .milliseconds(let ms): scaled(ms, by: 1_000_000)
                case .microseconds(let us): scaled(us, by: 1_000)
                case .nanoseconds(let ns): ns
                case .never: .max
                @unknown default: .max
                }
            }

            /// Orders two intervals.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// Multiplies two intervals.
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                // NB: as Combine's, the product of two durations in seconds (`.seconds(2) * 3` is six seconds; two
                // strides of a few nanoseconds multiply to nothing).
                Stride(nanoseconds: clamped(Double(lhs.magnitude) * Double(rhs.magnitude) / 1_000_000_000))
            }
            /// Adds two intervals.
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                let (sum, overflow) = lhs.magnitude.addingReportingOverflow(rhs.magnitude)
                return Stride(nanoseconds: overflow ? (rhs.magnitude < 0 ? .min : .max) : sum)
            }
            /// Subtracts two intervals.
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                let (difference, overflow) = lhs.magnitude.subtractingReportingOverflow(rhs.magnitude)
                return Stride(nanoseconds: overflow ? (rhs.magnitude > 0 ? .min : .max) : difference)
            }
            /// Subtracts an interval in place.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies an interval in place.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            /// Adds an interval in place.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// An interval of whole seconds.
            public static func seconds(_ s: Int) -> Stride { Stride(nanoseconds: scaled(s, by: 1_000_000_000)) }
            /// An interval of seconds.
            public static func seconds(_ s: Double) -> Stride { Stride(nanoseconds: clamped(s * 1_000_000_000)) }
            /// An interval of milliseconds.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(nanoseconds: scaled(ms, by: 1_000_000)) }
            /// An interval of microseconds.
            public static func microseconds(_ us: Int) -> Stride { Stride(nanoseconds: scaled(us, by: 1_000)) }
            /// An interval of nanoseconds.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }
        }
    }

    /// Options that affect the operation of the dispatch queue scheduler.
    // NB: @unchecked Sendable: DispatchWorkItemFlags is an immutable option set, not yet marked Sendable on Linux.
    public struct SchedulerOptions: @unchecked Sendable {
        /// The dispatch queue quality of service.
        public var qos: DispatchQoS
        /// The dispatch queue work item flags.
        public var flags: DispatchWorkItemFlags
        /// The dispatch group, if any, that should be used for performing actions.
        public var group: DispatchGroup?

        /// Creates dispatch queue scheduler options.
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }

    /// The dispatch queue scheduler's definition of the current moment in time.
    public var now: SchedulerTimeType { SchedulerTimeType(DispatchTime.now()) }

    /// The dispatch queue scheduler's minimum tolerance.
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// Performs the action on the queue at the next possible opportunity.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        // NB: Apple's signature has no @Sendable; the queue runs the action once, on its own thread.
        nonisolated(unsafe) let action = action
        let options = options ?? SchedulerOptions()
        async(group: options.group, qos: options.qos, flags: options.flags) { action() }
    }

    /// Performs the action on the queue at some time after the specified date.
    public func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        // NB: Apple's signature has no @Sendable; the queue runs the action once, on its own thread.
        nonisolated(unsafe) let action = action
        let options = options ?? SchedulerOptions()
        asyncAfter(deadline: date.dispatchTime, qos: options.qos, flags: options.flags) { action() }
    }

    /// Performs the action on the queue repeatedly, starting after the specified date.
    public func schedule(
        after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?, _ action: @escaping () -> Void
    ) -> any Cancellable {
        // NB: Apple's signature has no @Sendable; the timer fires on this (serial or not) queue.
        nonisolated(unsafe) let action = action
        let timer = DispatchSource.makeTimerSource(queue: self)
        timer.setEventHandler { action() }
        timer.schedule(
            deadline: date.dispatchTime, repeating: interval.timeInterval, leeway: tolerance.timeInterval
        )
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }
}
