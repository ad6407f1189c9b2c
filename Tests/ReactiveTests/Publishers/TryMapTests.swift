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

    @Test func everyThrowFailsTheDownstreamAndValuesStillPassAfterIt() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.tryMap { value -> Int in
            if value < 0 { throw TestError(code: -value) }
            return value * 2
        }.track()
        upstream.subscribe()
        for value in [1, -1, 2, -2] { upstream.send(value) }
        upstream.send(completion: .finished)
        #expect(
            tracker.events == [.subscription, .value(2), .failure("TestError(1)"), .value(4), .failure("TestError(2)")])
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled])
    }
}
