import Reactive
import Testing

@Suite struct CountContainsAllSatisfyTests {
    @Test func count() {
        #expect(["a", "b"].publisher.count().track().values == [2])
    }

    @Test func containsStopsAtTheFirstMatch() {
        let subject = PassthroughSubject<Int, Never>()
        var cancelled = false
        let tracker = subject.handleEvents(receiveCancel: { cancelled = true }).contains(5).track()
        subject.send(1)
        subject.send(5)
        #expect(tracker.events == [.subscription, .value(true), .finished])
        #expect(cancelled)
        #expect([1, 2].publisher.contains(5).track().values == [false])
    }

    @Test func containsWhereAndTryContainsWhere() {
        #expect([1, 5].publisher.contains { $0 > 3 }.track().values == [true])
        #expect(
            [1].publisher.tryContains { _ in throw TestError() }.track().events == [
                .subscription, .failure("TestError(1)"),
            ])
    }

    @Test func allSatisfy() {
        #expect([2, 4].publisher.allSatisfy { $0.isMultiple(of: 2) }.track().values == [true])
        #expect([2, 3, 4].publisher.allSatisfy { $0.isMultiple(of: 2) }.track().values == [false])
    }

    @Test func minAndMax() {
        #expect([3, 9, 1].publisher.max().track().values == [9])
        #expect([3, 9, 1].publisher.min().track().values == [1])
        #expect(["bb", "a", "ccc"].publisher.max { $0.count < $1.count }.track().values == ["ccc"])
    }

    @Test func ignoreOutputKeepsOnlyCompletion() {
        let tracker = TrackingSubscriber<Never, Never>()
        [1, 2].publisher.ignoreOutput().subscribe(tracker)
        #expect(tracker.events.count == 2)
    }
}
