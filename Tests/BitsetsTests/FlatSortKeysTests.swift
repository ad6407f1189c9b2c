import Bitsets
import Testing

@Suite struct FlatSortKeysTests {
    /// A key as the reference sort reads it: kind first, then number or bytes.
    private struct Reference {
        var kind: Int
        var number: Double = 0
        var bytes: [UInt8] = []

        func order(_ other: Reference) -> Int {
            if kind != other.kind { return kind < other.kind ? -1 : 1 }
            switch kind {
            case 0, 2: return number == other.number ? 0 : (number < other.number ? -1 : 1)
            case 1:
                if bytes == other.bytes { return 0 }
                return bytes.lexicographicallyPrecedes(other.bytes) ? -1 : 1
            default: return 0
            }
        }
    }

    /// The places sorted in C are those a plain Swift sort of the same keys gives (ties by place), for random
    /// keys of every kind, one to three per place, some descending, with many ties and texts that are
    /// prefixes of one another.
    @Test func sortsAsASwiftSortOfTheSameKeys() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let descending = (0..<Int.random(in: 1...3, using: &generator)).map { _ in Bool.random(using: &generator) }
            var keys = FlatSortKeys(descending: descending)
            var references: [[Reference]] = []
            for _ in 0..<Int.random(in: 0...60, using: &generator) {
                var place: [Reference] = []
                for _ in descending {
                    switch Int.random(in: 0...5, using: &generator) {
                    case 0, 1:
                        let number = Double(Int.random(in: -3...3, using: &generator)) / 2
                        keys.append(.number(number))
                        place.append(Reference(kind: 0, number: number))
                    case 2, 3:
                        let bytes = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                            [UInt8(0), 0x61, 0x62, 0xC3].randomElement(using: &generator)!
                        }
                        keys.append(.text(bytes))
                        place.append(Reference(kind: 1, bytes: bytes))
                    case 4:
                        let flag = Bool.random(using: &generator)
                        keys.append(.flag(flag))
                        place.append(Reference(kind: 2, number: flag ? 1 : 0))
                    default:
                        let other = Bool.random(using: &generator)
                        keys.append(other ? .other : .missing)
                        place.append(Reference(kind: other ? 3 : 4))
                    }
                }
                references.append(place)
            }
            let expected = references.indices.sorted { lhs, rhs in
                for (position, isDescending) in descending.enumerated() {
                    let order = references[lhs][position].order(references[rhs][position])
                    if order != 0 { return isDescending ? order > 0 : order < 0 }
                }
                return lhs < rhs
            }
            #expect(keys.count == references.count)
            #expect(keys.sortedPlaces() == expected, "\(references.map { $0.map(\.kind) }) \(descending)")
        }
    }

    @Test func appendTextIsTheTextsBytes() {
        var keys = FlatSortKeys(descending: [false])
        keys.appendText("é")
        keys.append(.text(Array("e".utf8)))
        keys.appendText("")
        keys.append(.text(Array("é".utf8)))
        #expect(keys.sortedPlaces() == [2, 1, 0, 3])
    }

    /// Texts order by their UTF-16 code units, as JavaScript orders strings (and `SortValue`): a character past
    /// U+FFFF (a surrogate pair) before U+E000...U+FFFF, which UTF-8's byte order puts the other way.
    @Test func textsOrderByTheirUTF16CodeUnits() {
        var keys = FlatSortKeys(descending: [false])
        for text in ["\u{FFFD}", "\u{1F600}", "\u{E000}", "z"] { keys.appendText(text) }
        #expect(keys.sortedPlaces() == [3, 1, 2, 0])
    }
}
