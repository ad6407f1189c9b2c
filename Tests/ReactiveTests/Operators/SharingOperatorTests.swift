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

@Suite struct MulticastTests {
    @Test func nothingFlowsUntilConnect() {
        let multicast = [1, 2].publisher.multicast { PassthroughSubject<Int, Never>() }
        let tracker = multicast.track()
        #expect(tracker.events == [.subscription])
        let connection = multicast.connect()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
        connection.cancel()
    }

    @Test func makeConnectableAndAutoconnect() {
        let connectable = [1].publisher.makeConnectable()
        let tracker = connectable.track()
        _ = connectable.connect()
        #expect(tracker.values == [1])
        let auto = [5].publisher.multicast(subject: PassthroughSubject()).autoconnect().track()
        #expect(auto.values == [5])
    }
}
