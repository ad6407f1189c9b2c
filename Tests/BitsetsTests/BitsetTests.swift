import Bitsets
import Testing

@Suite struct BitsetTests {
    /// Random sets combined as words answer as the same sets of places combined one place at a time.
    @Test func combinesAsSetsOfPlacesDo() {
        var generator = SystemRandomNumberGenerator()
        for size in [0, 1, 63, 64, 65, 130, 1_000] {
            for _ in 0..<20 {
                let first = (0..<size).map { _ in Bool.random(using: &generator) }
                let second = (0..<size).map { _ in Bool.random(using: &generator) }
                var both = Bitset(flags: first)
                both.formIntersection(Bitset(flags: second))
                #expect(both.flags == zip(first, second).map { $0 && $1 })
                var either = Bitset(flags: first)
                either.formUnion(Bitset(size: size, places: second.indices.filter { second[$0] }))
                #expect(either.flags == zip(first, second).map { $0 || $1 })
                var inverted = Bitset(flags: first)
                inverted.invert()
                #expect(inverted.places == first.indices.filter { !first[$0] })
                #expect(inverted.count == first.filter { !$0 }.count)
                let order = (0..<size).shuffled(using: &generator)
                #expect(Bitset(flags: first).places(in: order) == order.filter { first[$0] })
                var flags = first
                Bitset.combine(&flags, second, intersect: false)
                #expect(flags == either.flags)
            }
        }
        #expect(Bitset(size: 65, full: true).count == 65)
    }

    /// Each place takes its value's mark; a negative value is none.
    @Test func gathersEachPlacesValuesMark() {
        let values: [Int32] = [2, -1, 0, 1, 2, 0, -1]
        let marked = [true, false, true]
        let set = Bitset(values: values, marked: marked)
        #expect(set.places == [0, 2, 4, 5])
        #expect(set.contains(4) && !set.contains(1) && !set.contains(7) && !set.contains(-1))
    }

    /// Numbers ordered as JavaScript orders them: NaN passes nothing, and `only` leaves out the rest.
    @Test func marksNumbersAsJavaScriptOrdersThem() {
        let numbers: [Double] = [1, 5, .nan, 10, 5, -.infinity]
        #expect(
            Bitset.marks(numbers: numbers, against: 5, less: true, equal: true, greater: false)
                == [true, true, false, false, true, true])
        #expect(
            Bitset.marks(numbers: numbers, against: .nan, less: true, equal: true, greater: true)
                == [false, false, false, false, false, false])
        #expect(
            Bitset.marks(
                numbers: numbers, only: [true, false, true, true, true, true], against: 5, less: false, equal: true,
                greater: false) == [false, false, false, false, true, false])
    }
}
