extension Subscribers {
    /// A requested number of items, sent to a publisher from a subscriber through the subscription.
    ///
    /// ```swift
    /// subscription.request(.max(1))   // one more value
    /// subscription.request(.unlimited)
    /// ```
    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible, Sendable {
        /// The count, with `UInt.max` standing for unlimited.
        @usableFromInline let rawValue: UInt

        @inlinable init(rawValue: UInt) { self.rawValue = rawValue }

        // NB: computed, not `static let` (as in Combine's interface; every use compiles the same): a stored
        // static is reached through a lazy-initialization accessor call, and `.none` is returned for most values.
        /// A request for as many values as the publisher can produce.
        @inlinable public static var unlimited: Demand { Demand(rawValue: .max) }
        /// A request for no elements from the publisher.
        @inlinable public static var none: Demand { Demand(rawValue: 0) }

        /// Creates a demand for the given maximum number of elements (non-negative).
        /// A count as a demand: anything above `Int.max` is unlimited, as in Combine.
        @inlinable
        static func capped(_ count: UInt) -> Demand {
            count > UInt(Int.max) ? .unlimited : Demand(rawValue: count)
        }

        @inlinable
        public static func max(_ value: Int) -> Demand {
            precondition(value >= 0, "demand cannot be negative")
            return Demand(rawValue: UInt(value))
        }

        /// The number of requested values, or `nil` if unlimited.
        @inlinable
        public var max: Int? { rawValue == .max ? nil : Int(rawValue) }

        /// A textual representation of this demand.
        public var description: String { rawValue == .max ? "unlimited" : "max(\(rawValue))" }

        /// Adds two demands; anything plus unlimited is unlimited.
        @inlinable
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == .max || rhs.rawValue == .max { return .unlimited }
            return capped(lhs.rawValue + rhs.rawValue)
        }

        /// Adds a demand to this one.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Demand) { lhs = lhs + rhs }

        /// Adds a count of elements to a demand.
        @inlinable
        public static func + (lhs: Demand, rhs: Int) -> Demand {
            rhs < 0 ? lhs - capped(rhs.magnitude) : lhs + capped(rhs.magnitude)
        }

        /// Adds a count of elements to this demand.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Int) { lhs = lhs + rhs }

        /// Multiplies a demand by a count; unlimited stays unlimited.
        @inlinable
        public static func * (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == .max { return .unlimited }
            precondition(rhs >= 0, "demand cannot be negative")
            let (product, overflow) = lhs.rawValue.multipliedReportingOverflow(by: UInt(rhs))
            return overflow ? .unlimited : capped(product)
        }

        /// Multiplies this demand by a count.
        @inlinable
        public static func *= (lhs: inout Demand, rhs: Int) { lhs = lhs * rhs }

        /// Subtracts one demand from another; unlimited minus anything stays unlimited, and a negative
        /// result becomes `.none`.
        @inlinable
        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == .max { return .unlimited }
            if rhs.rawValue == .max { return .none }
            return lhs.rawValue >= rhs.rawValue ? Demand(rawValue: lhs.rawValue - rhs.rawValue) : .none
        }

        /// Subtracts a demand from this one.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Demand) { lhs = lhs - rhs }

        /// Subtracts a count of elements from a demand.
        @inlinable
        // NB: a negative count adds, as in Combine, where a sum beyond `Int.max` overflows to no demand at all
        // (`.max(Int.max) - (-1)` is `.none`), unlike `+`, which saturates at unlimited.
        public static func - (lhs: Demand, rhs: Int) -> Demand {
            guard rhs < 0 else { return lhs - capped(rhs.magnitude) }
            if lhs.rawValue == .max { return .unlimited }
            let (sum, overflow) = Int(lhs.rawValue).subtractingReportingOverflow(rhs)
            return overflow ? .none : .max(sum)
        }

        /// Subtracts a count of elements from this demand.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Int) { lhs = lhs - rhs }

        /// Orders demands; unlimited is greater than any finite demand.
        @inlinable
        public static func < (lhs: Demand, rhs: Demand) -> Bool { lhs.rawValue < rhs.rawValue }

        /// Compares a demand with a count.
        @inlinable
        public static func > (lhs: Demand, rhs: Int) -> Bool { rhs < 0 || lhs.rawValue > UInt(rhs) }
        /// Compares a demand with a count.
        @inlinable
        public static func >= (lhs: Demand, rhs: Int) -> Bool { rhs < 0 || lhs.rawValue >= UInt(rhs) }
        /// Compares a demand with a count.
        @inlinable
        public static func < (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue < UInt(rhs) }
        /// Compares a demand with a count.
        @inlinable
        public static func <= (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue <= UInt(rhs) }
        /// Compares a count with a demand.
        @inlinable
        public static func > (lhs: Int, rhs: Demand) -> Bool { rhs < lhs }
        /// Compares a count with a demand.
        @inlinable
        public static func >= (lhs: Int, rhs: Demand) -> Bool { rhs <= lhs }
        /// Compares a count with a demand.
        @inlinable
        public static func < (lhs: Int, rhs: Demand) -> Bool { rhs > lhs }
        /// Compares a count with a demand.
        @inlinable
        public static func <= (lhs: Int, rhs: Demand) -> Bool { rhs >= lhs }
        /// Tests a demand for equality with a count.
        @inlinable
        public static func == (lhs: Demand, rhs: Int) -> Bool { rhs >= 0 && lhs.rawValue == UInt(rhs) }
        /// Tests a demand for inequality with a count.
        @inlinable
        public static func != (lhs: Demand, rhs: Int) -> Bool { !(lhs == rhs) }
        /// Tests a count for equality with a demand.
        @inlinable
        public static func == (lhs: Int, rhs: Demand) -> Bool { rhs == lhs }
        /// Tests a count for inequality with a demand.
        @inlinable
        public static func != (lhs: Int, rhs: Demand) -> Bool { !(rhs == lhs) }

        /// Decodes a demand from its count (unlimited as `UInt.max`).
        public init(from decoder: any Decoder) throws {
            rawValue = Demand.capped(try decoder.singleValueContainer().decode(UInt.self)).rawValue
        }

        /// Encodes a demand as its count (unlimited as `UInt.max`).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            // Combine's encoding: the count, with unlimited as Int.max + 1.
            try container.encode(rawValue == .max ? UInt(Int.max) + 1 : rawValue)
        }
    }
}

extension Subscribers.Demand {
    /// Traps on a request of zero, which Combine's subscriptions refuse.
    @inlinable
    package func assertNonZero() {
        precondition(self != .none, "A request must ask for at least one element")
    }
}
