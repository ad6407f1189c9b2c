import CBitsets

/// UTF-8 text cut into segments (a large collection's items, each from `starts[s]` to `starts[s + 1]`), and the
/// loops over all of it that a search (`q`) takes, in C: lowercasing each segment by a table of scalars, and
/// finding the segments that hold some bytes (a debug build's Swift spends 10-30 ns on each byte or item, so
/// these loops over the 10-20 MB text of 100,000 items would fill the 50 ms work budget).
///
/// ```swift
/// let lower = ByteText.lowercased(Array("AB\nÉ\n".utf8), starts: [0, 3, 6], table: table)
/// // lower.text == Array("ab\né\n".utf8) when table maps É to é
/// ByteText.segments(holding: Array("é".utf8), in: lower.text, starts: lower.starts)  // [1]
/// ```
package enum ByteText {
    /// `text`'s segments lowercased: ASCII letters by their own rule, each scalar `c` below 0x20000 as
    /// `table[c]` (0x20000 entries) and those above kept; `unmapped`, ascending: the segments holding a scalar
    /// whose entry is 0, copied as they are for the caller to lowercase.
    package static func lowercased(_ text: [UInt8], starts: [Int], table: [UInt32]) -> (
        text: [UInt8], starts: [Int], unmapped: [Int]
    ) {
        precondition(table.count == 0x20000 && !starts.isEmpty && starts.last! <= text.count, "a table and segments")
        let count = starts.count - 1
        var lower = [UInt8](repeating: 0, count: 2 * text.count)
        var lowerStarts = [Int](repeating: 0, count: starts.count)
        var flags = [Bool](repeating: false, count: max(count, 1))
        let written = text.withUnsafeBufferPointer { text in
            starts.withUnsafeBufferPointer { starts in
                table.withUnsafeBufferPointer { table in
                    lower.withUnsafeMutableBufferPointer { lower in
                        lowerStarts.withUnsafeMutableBufferPointer { lowerStarts in
                            flags.withUnsafeMutableBufferPointer { flags in
                                livestate_text_lower(
                                    text.baseAddress, starts.baseAddress, count, table.baseAddress,
                                    lower.baseAddress, lowerStarts.baseAddress, flags.baseAddress)
                            }
                        }
                    }
                }
            }
        }
        lower.removeLast(lower.count - written)
        var unmapped: [Int] = []
        if count > 0 {
            flags.withUnsafeBufferPointer { flags in
                var places = [Int](repeating: 0, count: count)
                let found = places.withUnsafeMutableBufferPointer { places in
                    var words = [UInt64](repeating: 0, count: (count + 63) / 64)
                    return words.withUnsafeMutableBufferPointer { words in
                        livestate_bits_from_flags(flags.baseAddress, count, words.baseAddress)
                        return livestate_bits_places(words.baseAddress, count, places.baseAddress)
                    }
                }
                unmapped = Array(places.prefix(found))
            }
        }
        return (lower, lowerStarts, unmapped)
    }

    /// The segments of `text` in which `needle` (not empty) starts, ascending.
    package static func segments(holding needle: [UInt8], in text: [UInt8], starts: [Int]) -> [Int] {
        precondition(!needle.isEmpty && !starts.isEmpty && starts.last! <= text.count, "a needle and segments")
        let count = starts.count - 1
        var found = [Int](repeating: 0, count: max(count, 1))
        let holding = text.withUnsafeBufferPointer { text in
            starts.withUnsafeBufferPointer { starts in
                needle.withUnsafeBufferPointer { needle in
                    found.withUnsafeMutableBufferPointer { found in
                        livestate_text_segments_holding(
                            text.baseAddress, starts.baseAddress, count, needle.baseAddress, needle.count,
                            found.baseAddress)
                    }
                }
            }
        }
        found.removeLast(found.count - holding)
        return found
    }

    /// Whether the UTF-8 bytes of `text` hold those of `needle` (an empty needle is in every text).
    package static func contains(_ text: String, _ needle: String) -> Bool {
        var text = text
        var needle = needle
        return text.withUTF8 { text in
            needle.withUTF8 { needle in
                needle.isEmpty
                    || livestate_text_find(text.baseAddress, 0, text.count, needle.baseAddress, needle.count) >= 0
            }
        }
    }
}
