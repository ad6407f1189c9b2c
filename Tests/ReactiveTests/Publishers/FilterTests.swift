import Reactive
import Testing

@Suite struct FilterTests {
    @Test func dropsTitlesOfThreeCharacters() {
        let tracker = ["Tea", "Walk the dog", "Gym", "Read"].publisher.filter { $0.count > 3 }.track()
        #expect(tracker.values == ["Walk the dog", "Read"])
    }

    @Test func honoursDemandWhileDropping() {
        let tracker = (1...10).publisher.filter { $0.isMultiple(of: 3) }.track(initialDemand: .max(2))
        #expect(tracker.events == [.subscription, .value(3), .value(6)])
    }

    @Test func tryFilterFails() {
        let tracker = [1, 2].publisher.tryFilter {
            if $0 == 2 { throw TestError() }; return true
        }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}
