import Bitsets
import StrictJSON

/// A sort key read once per item: numbers as doubles, so that comparing two is cheap.
enum SortValue {
    case number(Double)
    case text(String)
    case flag(Bool)
    case other(JSONValue)
    case missing

    init(_ value: JSONValue?) {
        switch value {
        case .integer(let number): self = .number(Double(number))
        case .real(let number): self = .number(number)
        case .string(let text): self = .text(text)
        case .bool(let flag): self = .flag(flag)
        case .null, nil: self = .missing
        case let other?: self = .other(other)
        }
    }

    var rank: Int {
        switch self {
        case .number: 0
        case .text: 1
        case .flag: 2
        case .other: 3
        case .missing: 4
        }
    }

    /// -1, 0 or 1: numbers numerically, text by UTF-16 code units (as JavaScript orders strings), false before
    /// true; numbers before text before booleans before arrays and objects, and a missing or null value after
    /// every other.
    func order(_ other: SortValue) -> Int {
        switch (self, other) {
        case (.number(let a), .number(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.text(let a), .text(let b)): return ByteText.order(a, b)
        case (.flag(let a), .flag(let b)): return a == b ? 0 : (a ? 1 : -1)
        default:
            let (left, right) = (rank, other.rank)
            return left == right ? 0 : (left < right ? -1 : 1)
        }
    }
}
