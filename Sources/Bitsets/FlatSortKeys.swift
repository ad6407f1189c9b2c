import CBitsets

/// The sort keys of many places, read once into flat arrays, and the places sorted by them in C: a large
/// collection's first sort order, where the same sort through closures over enum values took a debug build
/// about 2 s of CPU for 100,000 items.
///
/// Each place appends `width` keys in order (`append`); kinds sort number, text, boolean, other, missing;
/// numbers and booleans by value, texts by UTF-16 code units read from their bytes (`ByteText.order`), the
/// others tied; a descending key reversed; ties by place.
///
/// ```swift
/// var keys = FlatSortKeys(descending: [false])
/// keys.append(.text(Array("b".utf8)))
/// keys.append(.number(1))
/// keys.sortedPlaces()  // [1, 0]
/// ```
package struct FlatSortKeys: Sendable {
    /// One key of one place.
    package enum Key {
        case number(Double)
        case text([UInt8])
        case flag(Bool)
        case other
        case missing
    }

    private var kinds: [UInt8] = []
    private var numbers: [Double] = []
    private var offsets: [Int] = []
    private var lengths: [Int] = []
    /// The texts' bytes, after one byte that keeps its base address set however short the texts are.
    private var text: [UInt8] = [0]
    private let descending: [Bool]

    /// Keys of `descending.count` per place, each reversed where `descending` says; room for `capacity` places.
    package init(descending: [Bool], capacity: Int = 0) {
        precondition(!descending.isEmpty, "at least one key per place")
        self.descending = descending
        let keys = capacity * descending.count
        kinds.reserveCapacity(keys)
        numbers.reserveCapacity(keys)
        offsets.reserveCapacity(keys)
        lengths.reserveCapacity(keys)
    }

    /// How many places have all their keys.
    package var count: Int { kinds.count / descending.count }

    /// Appends the next key (of the place whose keys are being appended).
    package mutating func append(_ key: Key) {
        switch key {
        case .number(let value): appendKind(0, number: value)
        case .text(let bytes):
            appendKind(1, number: 0, offset: text.count, length: bytes.count)
            text.append(contentsOf: bytes)
        case .flag(let value): appendKind(2, number: value ? 1 : 0)
        case .other: appendKind(3, number: 0)
        case .missing: appendKind(4, number: 0)
        }
    }

    /// Appends a text key from its UTF-8 bytes, without an array of its own.
    package mutating func appendText(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            appendKind(1, number: 0, offset: text.count, length: bytes.count)
            text.append(contentsOf: bytes)
        }
    }

    private mutating func appendKind(_ kind: UInt8, number: Double, offset: Int = 0, length: Int = 0) {
        kinds.append(kind)
        numbers.append(number)
        offsets.append(offset)
        lengths.append(length)
    }

    /// The places 0..<count in the order of their keys.
    package func sortedPlaces() -> [Int] {
        precondition(kinds.count % descending.count == 0, "every place has all its keys")
        var places = Array(0..<count)
        let sorted = kinds.withUnsafeBufferPointer { kinds in
            numbers.withUnsafeBufferPointer { numbers in
                offsets.withUnsafeBufferPointer { offsets in
                    lengths.withUnsafeBufferPointer { lengths in
                        text.withUnsafeBufferPointer { text in
                            descending.withUnsafeBufferPointer { descending in
                                places.withUnsafeMutableBufferPointer { places in
                                    var keys = livestate_sort_keys(
                                        kinds: kinds.baseAddress, numbers: numbers.baseAddress,
                                        offsets: offsets.baseAddress, lengths: lengths.baseAddress,
                                        text: text.baseAddress, descending: descending.baseAddress,
                                        width: descending.count)
                                    return livestate_sort_places(&keys, places.baseAddress, places.count)
                                }
                            }
                        }
                    }
                }
            }
        }
        precondition(sorted, "memory for a buffer of the places")
        return places
    }
}
