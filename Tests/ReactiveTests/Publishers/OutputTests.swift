import Reactive
import Testing

@Suite struct OutputTests {
    @Test(arguments: [(0, ["a"]), (2, ["c"]), (5, [])])
    func outputAt(index: Int, expected: [String]) {
        let tracker = ["a", "b", "c"].publisher.output(at: index).track()
        #expect(tracker.values == expected)
        #expect(tracker.events.last == .finished)
    }

    @Test func outputInRange() {
        #expect((0..<10).publisher.output(in: 2...4).track().values == [2, 3, 4])
    }
}
