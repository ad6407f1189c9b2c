import Domain
import StrictJSON
import Testing

@testable import Server

/// `DataFileIDs`: the ids a load has read, compared by their text as the server compares them.
@Suite struct DataFileIDsTests {
    private func id(_ value: JSONValue) -> DocumentID { DocumentID(value)! }

    /// Whether `value` went in (it was not there).
    private func insert(_ value: JSONValue, into ids: inout DataFileIDs) -> Bool { ids.insert(id(value)) }

    @Test func anIntegerAndItsTextAreOneIDAndOtherSpellingsAreNot() {
        var ids = DataFileIDs()
        #expect(insert(.integer(1), into: &ids))
        #expect(!insert(.string("1"), into: &ids))
        for other: JSONValue in [.string("01"), .string("+1"), .string("1.0"), .string(" 1"), .integer(-1)] {
            #expect(insert(other, into: &ids), "\(other)")
            #expect(!insert(other, into: &ids), "\(other)")
        }
        #expect(insert(.string("-0"), into: &ids))
        #expect(insert(.integer(0), into: &ids))
        #expect(ids.contains(id(.string("0"))))
    }

    /// Ids kept as bits (from 0 up, across words) and as numbers (negative, large).
    static let numbers: [[Int64]] = [
        Array(0..<200), [63, 64, 65, 127, 128, 0], [(1 << 24) - 1, 1 << 24, 1 << 40, -5, .max, .min],
        (0..<1_000).map { Int64($0) * 7_919 % 1_000_003 },
    ]

    @Test(arguments: numbers)
    func eachIDIsFoundOnceWhateverItsSize(numbers: [Int64]) {
        var ids = DataFileIDs()
        for number in numbers {
            #expect(!ids.contains(id(.integer(number))))
            #expect(insert(.integer(number), into: &ids))
            #expect(!insert(.string(String(number)), into: &ids))
        }
        #expect(numbers.allSatisfy { ids.contains(id(.integer($0))) })
        #expect(!ids.contains(id(.integer(1_000_004))))
    }
}
