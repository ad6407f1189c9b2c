import CBitsets

extension Bitset {
    /// Whether each of `numbers` orders against `number` as asked (`less`, `equal`, `greater`), as JavaScript's
    /// relational operators order numbers (NaN passes none), and, with `only`, its flag there is set.
    package static func marks(
        numbers: [Double], only: [Bool]? = nil, against number: Double, less: Bool, equal: Bool, greater: Bool
    ) -> [Bool] {
        var marked = [Bool](repeating: false, count: numbers.count)
        precondition(only.map { $0.count == numbers.count } ?? true, "flags of another count")
        numbers.withUnsafeBufferPointer { numbers in
            marked.withUnsafeMutableBufferPointer { marked in
                func mark(_ only: UnsafePointer<Bool>?) {
                    livestate_mark_numbers(
                        numbers.baseAddress, only, numbers.count, number, less, equal, greater, marked.baseAddress)
                }
                if let only {
                    only.withUnsafeBufferPointer { only in mark(only.baseAddress) }
                } else {
                    mark(nil)
                }
            }
        }
        return marked
    }

    /// `target[place] = target[place] && other[place]` for each place (`intersect`), or `||`.
    package static func combine(_ target: inout [Bool], _ other: [Bool], intersect: Bool) {
        precondition(target.count == other.count, "flags of another count")
        other.withUnsafeBufferPointer { other in
            target.withUnsafeMutableBufferPointer { target in
                livestate_flags_combine(target.baseAddress, other.baseAddress, target.count, intersect)
            }
        }
    }

    /// `flags[place] = !flags[place]` for each place.
    package static func invert(_ flags: inout [Bool]) {
        flags.withUnsafeMutableBufferPointer { flags in livestate_flags_invert(flags.baseAddress, flags.count) }
    }
}
