import Reactive
import Testing

@Suite struct CompactMapTests {
    @Test(arguments: [
        (["1", "x", "3"], [1, 3]),
        (["a", "b"], []),
    ])
    func keepsOnlyNonNilResults(input: [String], expected: [Int]) {
        #expect(input.publisher.compactMap(Int.init).track().values == expected)
    }

    @Test func droppedValuesDoNotUseUpDemand() {
        let tracker = ["x", "1", "y", "2", "3"].publisher.compactMap(Int.init).track(initialDemand: .max(2))
        #expect(tracker.events == [.subscription, .value(1), .value(2)])
    }

    @Test func tryCompactMapFails() {
        let tracker = [1, 2].publisher.tryCompactMap { value -> Int? in
            if value == 2 { throw TestError() }
            return value
        }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}
