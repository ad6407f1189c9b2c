/// A list body's entity tag kept up to date from its changes: a write that changes a run of items costs a hash
/// of that run and of the items on either side, whatever the length of the list, where a checksum of the body
/// costs the whole body once per version read (`ListEncoder` keeps one per list).
///
/// The digest is a sum (modulo 2^64, in two independent lanes) over the list's neighbour pairs: each item's
/// bytes hashed, and each pair of neighbours (the list's start, every item in order, its end) mixed into one
/// number, order mattering. Taking a run out and putting another in subtracts the pairs that ran through the
/// old run and adds the pairs through the new one. The tag depends on the bytes alone: the same list
/// gives the same tag on every instance and after every restart, however it was reached (no journal id, no
/// process state goes into it).
///
/// The pairs name one list only when no item's bytes occur twice (a list `A B A C A` and `A C A B A` have the
/// same pairs): so a tag is given only for lists whose ids are unique, and the ids are in the items' bytes.
///
/// ```swift
/// var digest = ListDigest()                        // the empty list
/// digest.replace([], with: [bytesA, bytesB], between: .start, and: .end)
/// digest.tag(count: 2, length: body.count)         // "\"3f…-2-4a\""
/// ```
package struct ListDigest: Sendable, Equatable {
    /// One item's hash (two independent 64-bit hashes of its bytes), or one of the list's two ends.
    package struct Item: Sendable, Equatable {
        var first: UInt64
        var second: UInt64

        /// The list's start, before its first item.
        package static let start = Item(first: 0x243F_6A88_85A3_08D3, second: 0x1319_8A2E_0370_7344)
        /// The list's end, after its last item.
        package static let end = Item(first: 0xA409_3822_299F_31D0, second: 0x082E_FA98_EC4E_6C89)

        /// The hash of an item's bytes: FNV-1a in the first lane, a multiply-rotate hash in the second,
        /// each finished by a 64-bit mixer (MurmurHash3's).
        package init(_ bytes: ArraySlice<UInt8>) {
            var first: UInt64 = 0xCBF2_9CE4_8422_2325
            var second: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
            for byte in bytes {
                first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                second = ((second &+ UInt64(byte)) &* 0xC2B2_AE3D_27D4_EB4F)
                second = (second << 31) | (second >> 33)
            }
            self.first = Self.mix(first)
            self.second = Self.mix(second)
        }

        private init(first: UInt64, second: UInt64) {
            self.first = first
            self.second = second
        }

        /// MurmurHash3's 64-bit finaliser: every input bit changes about half the output bits.
        static func mix(_ value: UInt64) -> UInt64 {
            var value = value
            value ^= value >> 33
            value &*= 0xFF51_AFD7_ED55_8CCD
            value ^= value >> 33
            value &*= 0xC4CE_B9FE_1A85_EC53
            value ^= value >> 33
            return value
        }
    }

    private var first: UInt64
    private var second: UInt64

    /// The digest of the empty list (its start next to its end).
    package init() {
        first = 0
        second = 0
        add(.start, .end)
    }

    /// Replaces the run `old` by the run `new`, both lying between `left` (the item before the run, or
    /// `.start`) and `right` (the item after it, or `.end`).
    package mutating func replace(_ old: [Item], with new: [Item], between left: Item, and right: Item) {
        var previous = left
        for item in old {
            remove(previous, item)
            previous = item
        }
        remove(previous, right)
        previous = left
        for item in new {
            add(previous, item)
            previous = item
        }
        add(previous, right)
    }

    /// The strong entity tag (quoted) of a list of `count` items whose body is `length` bytes long.
    package func tag(count: Int, length: Int) -> String {
        "\"\(Self.hex(first))\(Self.hex(second))-\(String(count, radix: 16))-\(String(length, radix: 16))\""
    }

    private mutating func add(_ left: Item, _ right: Item) {
        let pair = Self.pair(left, right)
        first &+= pair.first
        second &+= pair.second
    }

    private mutating func remove(_ left: Item, _ right: Item) {
        let pair = Self.pair(left, right)
        first &-= pair.first
        second &-= pair.second
    }

    /// One pair of neighbours, order mattering (`A` before `B` is not `B` before `A`).
    private static func pair(_ left: Item, _ right: Item) -> (first: UInt64, second: UInt64) {
        let first = Item.mix(left.first &+ ((right.first << 17) | (right.first >> 47)) &* 0x9E37_79B9_7F4A_7C15)
        let second = Item.mix(right.second ^ (left.second &* 0xD6E8_FEB8_6659_FD93))
        return (first, second)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
