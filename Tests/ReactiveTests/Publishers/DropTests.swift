import Reactive
import Testing

@Suite struct DropTests {
    @Test func dropFirst() {
        #expect([1, 2, 3].publisher.dropFirst().track().values == [2, 3])
        #expect([1, 2, 3].publisher.dropFirst(5).track().events == [.subscription, .finished])
    }

    @Test func dropWhile() {
        #expect([1, 2, 5, 1].publisher.drop { $0 < 3 }.track().values == [5, 1])
    }

    @Test func tryDropWhileFails() {
        let tracker = [1, 2].publisher.tryDrop { _ in throw TestError() }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }
}
