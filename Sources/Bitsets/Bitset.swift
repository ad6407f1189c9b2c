import CBitsets

/// A set of places `0..<size` (a large collection's items, or a field's distinct values) as 64-bit words: what
/// a filter's answer combines (`and`, `or`, `not`) a word at a time, and whose loops over every place run in C
/// (a debug build's Swift spends 10-30 ns per item on each, so a few of them over 100,000 items filled the
/// 50 ms work budget).
///
/// ```swift
/// var passing = Bitset(values: [0, 1, -1, 0], marked: [true, false])  // places 0 and 3
/// passing.formIntersection(Bitset(size: 4, places: [3]))
/// // passing.places == [3], passing.count == 1
/// ```
package struct Bitset: Sendable, Equatable {
    /// The words: place `p` is bit `p % 64` of word `p / 64`; the bits past `size` are 0.
    private var words: [UInt64]
    /// The places it may hold: `0..<size`.
    package let size: Int

    /// The empty set of `0..<size`, or (`full`) all of it.
    package init(size: Int, full: Bool = false) {
        self.size = size
        words = [UInt64](repeating: full ? ~0 : 0, count: (size + 63) / 64)
        if full { clearTail() }
    }

    /// The set of `places` (each in `0..<size`).
    package init(size: Int, places: [Int]) {
        self.init(size: size)
        insert(contentsOf: places)
    }

    /// The places whose flag is set, of `0..<flags.count`.
    package init(flags: [Bool]) {
        self.init(size: flags.count)
        flags.withUnsafeBufferPointer { flags in
            words.withUnsafeMutableBufferPointer { words in
                livestate_bits_from_flags(flags.baseAddress, flags.count, words.baseAddress)
            }
        }
    }

    /// The places whose value (`values[place]`, an index into `marked`, or negative for none) is marked.
    package init(values: [Int32], marked: [Bool]) {
        self.init(size: values.count)
        let gathered = values.withUnsafeBufferPointer { values in
            marked.withUnsafeBufferPointer { marked in
                words.withUnsafeMutableBufferPointer { words in
                    livestate_bits_gather(
                        values.baseAddress, values.count, marked.baseAddress, marked.count, words.baseAddress)
                }
            }
        }
        precondition(gathered, "a value past the marks")
    }

    /// Whether each place of `0..<size` is in the set.
    package var flags: [Bool] {
        var flags = [Bool](repeating: false, count: size)
        words.withUnsafeBufferPointer { words in
            flags.withUnsafeMutableBufferPointer { flags in
                livestate_bits_to_flags(words.baseAddress, flags.count, flags.baseAddress)
            }
        }
        return flags
    }

    /// Its places, ascending.
    package var places: [Int] {
        var places = [Int](repeating: 0, count: count)
        let found = words.withUnsafeBufferPointer { words in
            places.withUnsafeMutableBufferPointer { places in
                livestate_bits_places(words.baseAddress, size, places.baseAddress)
            }
        }
        precondition(found == places.count, "the words hold bits past the size")
        return places
    }

    /// How many places it holds.
    package var count: Int {
        words.withUnsafeBufferPointer { words in livestate_bits_count(words.baseAddress, words.count) }
    }

    /// The places of `order` (each in `0..<size`) it holds, in `order`'s order.
    package func places(in order: [Int]) -> [Int] {
        var places = [Int](repeating: 0, count: Swift.min(order.count, count))
        let found = words.withUnsafeBufferPointer { words in
            order.withUnsafeBufferPointer { order in
                places.withUnsafeMutableBufferPointer { places in
                    livestate_bits_select(
                        words.baseAddress, size, order.baseAddress, order.count, places.baseAddress, places.count)
                }
            }
        }
        precondition(found >= 0, "a place past the size, or repeated")
        places.removeLast(places.count - found)
        return places
    }

    /// Whether it holds `place`.
    package func contains(_ place: Int) -> Bool {
        place >= 0 && place < size && words[place >> 6] & (1 << UInt64(place & 63)) != 0
    }

    /// Adds `place` (in `0..<size`).
    package mutating func insert(_ place: Int) {
        precondition(place >= 0 && place < size, "a place past the size")
        words[place >> 6] |= 1 << UInt64(place & 63)
    }

    /// Adds each of `places` (each in `0..<size`).
    package mutating func insert(contentsOf places: [Int]) {
        let size = self.size
        let inserted = places.withUnsafeBufferPointer { places in
            words.withUnsafeMutableBufferPointer { words in
                livestate_bits_insert(places.baseAddress, places.count, size, words.baseAddress)
            }
        }
        precondition(inserted, "a place past the size")
    }

    /// Keeps only the places `other` (of the same size) also holds.
    package mutating func formIntersection(_ other: Bitset) { combine(other, intersect: true) }

    /// Adds the places `other` (of the same size) holds.
    package mutating func formUnion(_ other: Bitset) { combine(other, intersect: false) }

    /// Holds the places of `0..<size` it did not.
    package mutating func invert() {
        for word in words.indices { words[word] = ~words[word] }
        clearTail()
    }

    private mutating func combine(_ other: Bitset, intersect: Bool) {
        precondition(other.size == size, "sets of different sizes")
        other.words.withUnsafeBufferPointer { other in
            words.withUnsafeMutableBufferPointer { words in
                livestate_bits_combine(words.baseAddress, other.baseAddress, words.count, intersect)
            }
        }
    }

    /// Clears the bits past `size` in the last word.
    private mutating func clearTail() {
        guard size % 64 != 0, !words.isEmpty else { return }
        words[words.count - 1] &= (1 << UInt64(size % 64)) - 1
    }
}
