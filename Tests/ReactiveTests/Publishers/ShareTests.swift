import Reactive
import Testing

@Suite struct ShareTests {
    @Test func oneUpstreamSubscriptionForManySubscribers() {
        var subscriptions = 0
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.handleEvents(receiveSubscription: { _ in subscriptions += 1 }).share()
        let a = shared.track()
        let b = shared.track()
        subject.send(1)
        #expect(subscriptions == 1)
        #expect(a.values == [1])
        #expect(b.values == [1])
    }

    @Test func lastSubscriberLeavingDisconnects() {
        var cancels = 0
        let subject = PassthroughSubject<Int, Never>()
        let shared = subject.handleEvents(receiveCancel: { cancels += 1 }).share()
        let a = shared.track()
        let b = shared.track()
        a.cancel()
        #expect(cancels == 0)
        b.cancel()
        #expect(cancels == 1)
    }
}
