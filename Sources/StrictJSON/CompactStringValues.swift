import CJansson

/// The string values of a JSON array of objects as the writer writes it (`JSONObject.compactBytes` joined by
/// commas in brackets: a collection's list), read from its bytes without parsing the objects: each object's
/// strings at any depth, keys left out, each after a NUL and unescaped, then a line feed; where each object's
/// strings start; and whether each holds a character that is not printable ASCII. What a search of a
/// collection's strings (`q`) reads, made in C in one pass (reading each item's members cost about 1 s for
/// 100,000 items in a debug build).
///
/// ```swift
/// let values = CompactStringValues(list: Array(#"[{"a":"x","b":[1,"y"]}]"#.utf8), count: 1)
/// // values?.text == [0, 0x78, 0, 0x79, 0x0A], values?.starts == [0, 5], values?.others == [false]
/// ```
package struct CompactStringValues: Sendable {
    /// Each object's strings, each after a NUL, and a line feed after the object.
    package let text: [UInt8]
    /// Where each object starts in `text`, and its end.
    package let starts: [Int]
    /// Whether each object holds a string with a byte that is not printable ASCII.
    package let others: [Bool]

    /// The strings of `list`, a list of `count` objects as the writer writes it; nil when it is not one.
    package init?(list: [UInt8], count: Int) {
        var text = [UInt8](repeating: 0, count: list.count)
        var starts = [Int](repeating: 0, count: count + 1)
        var flags = [UInt8](repeating: 0, count: max(count, 1))
        let read = list.withUnsafeBufferPointer { json in
            text.withUnsafeMutableBufferPointer { text in
                starts.withUnsafeMutableBufferPointer { starts in
                    flags.withUnsafeMutableBufferPointer { flags in
                        livestate_string_values(
                            json.baseAddress, json.count, text.baseAddress, starts.baseAddress, flags.baseAddress,
                            count)
                    }
                }
            }
        }
        guard read == count else { return nil }
        text.removeLast(text.count - starts[count])
        self.text = text
        self.starts = starts
        others = flags.prefix(count).map { $0 != 0 }
    }
}
