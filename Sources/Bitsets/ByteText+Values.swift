import CBitsets

extension ByteText {
    /// How a value is tested against a needle: equal to it, holding it, starting or ending with it.
    package enum ValueTest: Int32, Sendable {
        case equal = 0, contains, startsWith, endsWith
    }

    /// Marks in `marked` (one flag per value; the others are left as they are) the values of `text` that pass
    /// `test` with `needle`, byte for byte: so code unit for code unit, as JavaScript compares strings, with no
    /// canonical equivalence. Value `s` is `text[starts[s]..<starts[s + 1] - 1]` (each followed by one separator
    /// byte); an empty needle is held by, starts and ends every value. One pass in C.
    package static func mark(
        _ test: ValueTest, _ needle: [UInt8], in text: [UInt8], starts: [Int], into marked: inout [Bool]
    ) {
        precondition(
            !starts.isEmpty && marked.count == starts.count - 1 && starts.last! <= text.count, "values and their flags")
        text.withUnsafeBufferPointer { text in
            starts.withUnsafeBufferPointer { starts in
                needle.withUnsafeBufferPointer { needle in
                    marked.withUnsafeMutableBufferPointer { marked in
                        livestate_text_mark_values(
                            text.baseAddress, starts.baseAddress, marked.count, needle.baseAddress, needle.count,
                            test.rawValue, marked.baseAddress)
                    }
                }
            }
        }
    }

    /// Whether each value of `text` (as for `mark`) orders against `operand` as asked (`less`, `equal`,
    /// `greater`), by UTF-16 code units as JavaScript's `<` orders strings, read from the UTF-8 bytes in C.
    package static func marks(
        orderingAgainst operand: [UInt8], in text: [UInt8], starts: [Int], less: Bool, equal: Bool, greater: Bool
    ) -> [Bool] {
        precondition(!starts.isEmpty && starts.last! <= text.count, "values")
        var marked = [Bool](repeating: false, count: starts.count - 1)
        text.withUnsafeBufferPointer { text in
            starts.withUnsafeBufferPointer { starts in
                operand.withUnsafeBufferPointer { operand in
                    marked.withUnsafeMutableBufferPointer { marked in
                        livestate_text_mark_order(
                            text.baseAddress, starts.baseAddress, marked.count, operand.baseAddress, operand.count,
                            less, equal, greater, marked.baseAddress)
                    }
                }
            }
        }
        return marked
    }
}

extension ByteText {
    /// How `lhs` orders against `rhs` by UTF-16 code units, as JavaScript's `<` orders strings (and json-server's
    /// sort and range filters): -1, 0 or 1, from their UTF-8 bytes in C. Swift's `<` orders by canonical
    /// equivalence instead, normalizing non-ASCII text on each comparison.
    package static func order(_ lhs: String, _ rhs: String) -> Int {
        var (lhs, rhs) = (lhs, rhs)
        return lhs.withUTF8 { lhs in
            rhs.withUTF8 { rhs in Int(livestate_text_order(lhs.baseAddress, lhs.count, rhs.baseAddress, rhs.count)) }
        }
    }
}
