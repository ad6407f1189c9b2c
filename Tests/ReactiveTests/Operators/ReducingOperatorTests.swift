import Reactive
import Testing

@Suite struct ReduceTests {
    @Test func publishesTheTotalOnFinish() {
        #expect([1, 2, 3].publisher.reduce(0, +).track().events == [.subscription, .value(6), .finished])
    }

    @Test func failureSkipsTheResult() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.reduce(0, +).track()
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }

    @Test func tryReduceFailsAndCancelsUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        var cancelled = false
        let tracker = subject.handleEvents(receiveCancel: { cancelled = true })
            .tryReduce(0) { total, next in
                guard next > 0 else { throw TestError() }
                return total + next
            }
            .track()
        subject.send(1)
        subject.send(0)
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
        #expect(cancelled)
    }
}

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
