import Reactive
import Testing

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
