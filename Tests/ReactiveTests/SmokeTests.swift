import Reactive
import Testing

@Suite struct SmokeTests {
    @Test func passthroughThroughMapFilterToSink() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.map { $0 * 2 }.filter { $0 > 2 }.subscribe(tracker)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        subject.send(3)
        #expect(tracker.events == [.subscription, .value(4), .finished])
    }

    @Test func currentValueDeliversCurrentValueFirst() {
        let subject = CurrentValueSubject<Int, Never>(7)
        var received: [Int] = []
        let token = subject.sink { received.append($0) }
        subject.send(8)
        token.cancel()
        subject.send(9)
        #expect(received == [7, 8])
    }
}
