import Reactive
import Testing

@Suite struct RemoveDuplicatesTests {
    @Test func dropsConsecutiveRepeatsOnly() {
        #expect([1, 1, 2, 2, 1, 3, 3].publisher.removeDuplicates().track().values == [1, 2, 1, 3])
    }

    @Test func customPredicate() {
        #expect(
            ["a", "A", "b"].publisher.removeDuplicates { $0.lowercased() == $1.lowercased() }.track().values == [
                "a", "b",
            ])
    }

    @Test func tryRemoveDuplicatesFails() {
        let tracker = [1, 1, 2].publisher.tryRemoveDuplicates { _, _ in throw TestError() }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}
