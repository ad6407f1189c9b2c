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

    @Test func subscribersSeeAMulticastSubscription() {
        let shared = PassthroughSubject<Int, Never>().share()
        let tracker = shared.track()
        #expect(tracker.subscription.map { String(describing: $0) } == "Multicast")
    }

    @Test func autoconnectHandsOnTheUpstreamsSubscriptionUnderItsOwnNameAndIdentity() {
        let upstream = ManualPublisher<Int, Never>()
        let connectable = ManualConnectable(upstream)
        let tracker = connectable.autoconnect().track(initialDemand: .max(2))
        upstream.subscribe()
        let seen = tracker.subscription
        #expect(seen.map { String(describing: $0) } == "RecordingSubscription")
        #expect(seen?.combineIdentifier == upstream.subscription.combineIdentifier)
        #expect(upstream.subscription.calls == [.requested(.max(2))])
    }

    @Test func autoconnectPassesOnEveryCancelButDisconnectsOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let connectable = ManualConnectable(upstream)
        let tracker = connectable.autoconnect().track()
        upstream.subscribe()
        #expect(connectable.connections == 1)
        tracker.cancel()
        tracker.cancel()
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled, .cancelled])
        #expect(connectable.disconnections == 1)
    }

    @Test func autoconnectPassesOnEventsAsTheyCome() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = ManualConnectable(upstream).autoconnect().track()
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(2)
        #expect(tracker.events == [.subscription, .value(1), .finished, .value(2)])
    }
}

/// A connectable publisher over a `ManualPublisher` that counts its connections and disconnections.
final class ManualConnectable: ConnectablePublisher, @unchecked Sendable {
    // NB: @unchecked Sendable: tests drive it from one thread.
    typealias Output = Int
    typealias Failure = Never
    let upstream: ManualPublisher<Int, Never>
    private(set) var connections = 0
    private(set) var disconnections = 0

    init(_ upstream: ManualPublisher<Int, Never>) { self.upstream = upstream }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        upstream.receive(subscriber: subscriber)
    }

    func connect() -> any Cancellable {
        connections += 1
        return AnyCancellable { self.disconnections += 1 }
    }
}
