import Reactive
import Testing

@Suite struct TryMapTests {
    @Test func aThrownErrorFailsTheStreamAndCancelsUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        var cancelled = false
        let tracker = subject.handleEvents(receiveCancel: { cancelled = true })
            .tryMap { value -> Int in
                guard value < 3 else { throw TestError(code: value) }
                return value
            }
            .track()
        subject.send(1)
        subject.send(3)
        subject.send(2)
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(3)")])
        #expect(cancelled)
    }
}
