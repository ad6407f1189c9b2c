import Reactive
import Testing

@Suite struct CollectTests {
    @Test func collectAll() {
        #expect((0..<3).publisher.collect().track().values == [[0, 1, 2]])
    }

    @Test func collectByCountEmitsFullBuffersThenTheRest() {
        #expect((0..<5).publisher.collect(2).track().values == [[0, 1], [2, 3], [4]])
    }

    @Test func collectByCountHonoursDemandInBuffers() {
        let tracker = (0..<10).publisher.collect(3).track(initialDemand: .max(1))
        #expect(tracker.values == [[0, 1, 2]])
        tracker.request(.max(1))
        #expect(tracker.values == [[0, 1, 2], [3, 4, 5]])
    }
}
