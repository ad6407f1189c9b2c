import Reactive
import Testing

@Suite struct PrefixTests {
    @Test func prefixCountFinishesEarlyAndCancelsUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        var cancelled = false
        let tracker = subject.handleEvents(receiveCancel: { cancelled = true }).prefix(2).track()
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
        #expect(cancelled)
    }

    @Test func prefixWhile() {
        #expect(
            [1, 2, 5, 1].publisher.prefix { $0 < 3 }.track().events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func tryPrefixWhileFails() {
        let tracker = [1].publisher.tryPrefix { _ in throw TestError() }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(1)")])
    }
}
