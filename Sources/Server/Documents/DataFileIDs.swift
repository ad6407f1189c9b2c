import Domain
import StrictJSON

/// The ids of a collection's items as a load reads them, to tell one that an earlier item has.
///
/// NB: an id that is an integer, or text that an integer writes back as (`"1"` and `1` are one id), is kept
/// as that integer, and one from 0 to `bitLimit` as a bit: a set of `DocumentID`s hashed each id's text
/// (about a tenth of a 100 MB file's load), and the ids of most files are 1, 2, 3, ….
struct DataFileIDs {
    /// Bit `n % 64` of word `n / 64`: the id `n`, for the ids below `bitLimit`.
    private var bits: [UInt64] = []
    private var numbers = Set<Int64>()
    private var texts = Set<String>()

    /// The integer ids kept as bits are those below it (at most 2 MiB of bits).
    private static let bitLimit: Int64 = 1 << 24

    /// Inserts `id`; false when it was there already.
    mutating func insert(_ id: DocumentID) -> Bool {
        guard let number = Self.number(id) else { return texts.insert(id.key).inserted }
        guard number >= 0, number < Self.bitLimit else { return numbers.insert(number).inserted }
        let (word, bit) = (Int(number >> 6), UInt64(1) << UInt64(number & 63))
        if word >= bits.count { bits += repeatElement(0, count: max(word + 1 - bits.count, bits.count)) }
        guard bits[word] & bit == 0 else { return false }
        bits[word] |= bit
        return true
    }

    /// Whether `id` is there.
    func contains(_ id: DocumentID) -> Bool {
        guard let number = Self.number(id) else { return texts.contains(id.key) }
        guard number >= 0, number < Self.bitLimit else { return numbers.contains(number) }
        let word = Int(number >> 6)
        return word < bits.count && bits[word] & (UInt64(1) << UInt64(number & 63)) != 0
    }

    /// The integer whose text is `id`'s, or nil.
    private static func number(_ id: DocumentID) -> Int64? {
        if case .integer(let number) = id.value { return number }
        guard let number = Int64(id.key), String(number) == id.key else { return nil }
        return number
    }
}
