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
