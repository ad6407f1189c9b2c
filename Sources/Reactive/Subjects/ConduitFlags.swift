/// Bits of `SubjectEntry.state`; in a conduit the bits from `demandUnit` up hold the demand, in a fused sink
/// the bits from 32 up its delivering thread (`FusedSinkBase`).
@usableFromInline
enum ConduitFlags {
    @usableFromInline static let ended: UInt = 1
    @usableFromInline static let needsCurrentValue: UInt = 2
    /// The subscriber's closures have been dropped (after the conduit ended).
    @usableFromInline static let released: UInt = 4
    /// A current-value subject's subscriber: a value dropped for lack of demand is replaced by the subject's
    /// value on the next request.
    @usableFromInline static let keepsLatest: UInt = 8
    /// The subject behind a `@Published` property (only its description differs: "PublishedSubject").
    @usableFromInline static let published: UInt = 16
    /// The subject behind an `ObservableObjectPublisher`: described as such, and it signals without demand.
    @usableFromInline static let observableObject: UInt = 32
    /// Events wait in the conduit's overflow queue (set and cleared under the queue's lock).
    @usableFromInline static let pending: UInt = 64
    /// The subject holds an overflow queue for this conduit (set under the subject's lock).
    @usableFromInline static let hasQueue: UInt = 128
    /// The entry is a `FusedSinkBase`: no demand bits, its delivering thread's number from bit 32 up.
    @usableFromInline static let fused: UInt = 256
    /// One unit of demand.
    @usableFromInline static let demandUnit: UInt = 512
    /// The flag bits, below the demand.
    @usableFromInline static let flagBits: UInt = demandUnit - 1
    /// The demand bits of unlimited demand: all of them set.
    @usableFromInline static let unlimited: UInt = ~flagBits

    /// Whether an owner leaving must deliver queued events or drop an ended subscriber.
    @inlinable
    static func needsDrain(_ state: UInt) -> Bool {
        state & pending != 0 || state & (ended | released) == ended
    }

    /// `demand` in the demand bits.
    // NB: 55 bits: a finite demand of 2^55 - 1 or more (36 quadrillion values) counts as unlimited.
    @inlinable
    static func bits(of demand: Subscribers.Demand) -> UInt {
        demand.rawValue >= unlimited / demandUnit ? unlimited : demand.rawValue &* demandUnit
    }

    /// The demand held in `state`.
    @inlinable
    static func demand(in state: UInt) -> Subscribers.Demand {
        state >= unlimited ? .unlimited : Subscribers.Demand(rawValue: state / demandUnit)
    }
}
