import Reactive
import Testing

@Suite struct MergeFourToEightTests {
    @Test func mergesFourAndEightPublishersOfDifferentTypes() {
        let four = Just(1).merge(with: [2].publisher, Optional(3).publisher, Just(4))
        #expect(four.track().values.sorted() == [1, 2, 3, 4])
        let eight = Just(1).merge(
            with: Just(2), Just(3), [4].publisher, Just(5), Optional(6).publisher, Just(7), [8].publisher)
        let tracker = eight.track()
        #expect(tracker.values.sorted() == Array(1...8))
        #expect(tracker.events.last == .finished)
    }
}
