import Reactive
import Testing

@Suite struct ScanTests {
    @Test func runningTotals() {
        #expect([1, 2, 3].publisher.scan(0, +).track().values == [1, 3, 6])
    }

    @Test func tryScanFails() {
        let tracker = [1, -1, 2].publisher.tryScan(0) { total, next in
            guard next >= 0 else { throw TestError() }
            return total + next
        }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }
}
