import Synchronization

/// The source of unique identifiers for `CombineIdentifier()`.
private let nextIdentifier = Atomic<UInt64>(0)

/// A unique identifier for identifying publisher streams.
public struct CombineIdentifier: Hashable, CustomStringConvertible, Sendable {
    private let rawValue: UInt64

    /// Creates a unique Combine identifier.
    public init() {
        rawValue = nextIdentifier.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Creates a Combine identifier, using the bit pattern of the provided object.
    public init(_ obj: AnyObject) {
        rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj)))
    }

    /// A textual representation of the identifier.
    public var description: String { "0x\(String(rawValue, radix: 16))" }
}

/// A protocol for uniquely identifying publisher streams.
public protocol CustomCombineIdentifierConvertible {
    /// A unique identifier for identifying publisher streams.
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    /// The identifier of an object-based stream: its identity.
    public var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }
}
