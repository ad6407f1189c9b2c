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

    @Test func eachSubscriberGetsItsOwnMulticastSubscriptionWithItsOwnDemand() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let one = multicast.track(initialDemand: .max(1))
        let many = multicast.track(initialDemand: .max(1), demandPerValue: .max(1))
        #expect(one.subscription.map { String(describing: $0) } == "Multicast")
        let connection = multicast.connect()
        upstream.send(1)
        upstream.send(2)
        one.request(.max(1))
        upstream.send(3)
        #expect(one.values == [1, 3])
        #expect(many.values == [1, 2, 3])
        one.cancel()
        upstream.send(4)
        #expect(one.values == [1, 3])
        #expect(many.values == [1, 2, 3, 4])
        connection.cancel()
    }

    @Test func aMulticastSubscriptionCancelledBeforeTheSubjectHandsOneOverCancelsThatOne() {
        let subject = HandOverLaterSubject()
        let multicast = Empty<Int, Never>(completeImmediately: false).multicast(subject: subject)
        let tracker = multicast.track()
        #expect(tracker.events == [])
        let late = RecordingSubscription()
        subject.handOver(late)
        #expect(tracker.events == [.subscription])
        tracker.cancel()
        #expect(late.calls == [.requested(.unlimited), .cancelled])
        let second = RecordingSubscription()
        subject.handOver(second)
        #expect(second.calls == [.cancelled])
    }

    @Test func aSubjectSubscribedToAPublisherGetsASubscriptionNamedSubject() {
        let subject = HandOverLaterSubject()
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        upstream.subscribe()
        #expect(subject.upstreams.map { String(describing: $0) } == ["Subject"])
        subject.upstreams.first?.request(.max(3))
        #expect(upstream.subscription.calls == [.requested(.max(3))])
        connection.cancel()
        #expect(upstream.subscription.calls == [.requested(.max(3)), .cancelled])
    }

    @Test func aSubjectIgnoresWhatItsUpstreamSendsBeforeTheSubscription() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.track()
        let upstream = ManualPublisher<Int, Never>()
        let connection = upstream.subscribe(subject)
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.subscribe()
        upstream.send(2)
        #expect(tracker.events == [.subscription, .value(2)])
        connection.cancel()
    }
}

/// A subject that records the upstream subscriptions it is given and hands each subscriber a subscription only
/// when the test says so.
final class HandOverLaterSubject: Subject, @unchecked Sendable {
    // NB: @unchecked Sendable: tests drive it from one thread.
    typealias Output = Int
    typealias Failure = Never
    private(set) var upstreams: [any Subscription] = []
    private var subscribers: [AnySubscriber<Int, Never>] = []

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscribers.append(AnySubscriber(subscriber))
    }

    /// Hands `subscription` to every subscriber so far.
    func handOver(_ subscription: any Subscription) {
        for subscriber in subscribers { subscriber.receive(subscription: subscription) }
    }

    func send(_ value: Int) { for subscriber in subscribers { _ = subscriber.receive(value) } }
    func send(completion: Subscribers.Completion<Never>) {
        for subscriber in subscribers { subscriber.receive(completion: completion) }
    }
    func send(subscription: any Subscription) { upstreams.append(subscription) }
}

/// What keeps a multicast's subject alive, as in Combine: its subscribers do, its connection does not.
@Suite struct MulticastSubjectLifetimeTests {
    @Test func theConnectionAloneDoesNotKeepTheSubject() {
        weak var released: PassthroughSubject<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        let connection: any Cancellable
        do {
            let subject = PassthroughSubject<Int, Never>()
            released = subject
            connection = upstream.multicast(subject: subject).connect()
        }
        #expect(released == nil)
        // With the subject gone, the link cancels the subscription it is given.
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.cancelled])
        connection.cancel()
    }

    @Test func aSubscriberKeepsTheSubjectUntilItCancels() {
        weak var released: PassthroughSubject<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        let connection: any Cancellable
        do {
            let subject = PassthroughSubject<Int, Never>()
            released = subject
            let multicast = upstream.multicast(subject: subject)
            multicast.subscribe(tracker)
            connection = multicast.connect()
        }
        upstream.subscribe()
        upstream.send(1)
        #expect(tracker.events == [.subscription, .value(1)])
        #expect(released != nil)
        tracker.cancel()
        #expect(released == nil)
        connection.cancel()
    }

    @Test func aSubjectSubscribedToAPublisherIsHeldWeakly() {
        weak var released: PassthroughSubject<Int, Never>?
        let upstream = ManualPublisher<Int, Never>()
        let connection: AnyCancellable
        do {
            let subject = PassthroughSubject<Int, Never>()
            released = subject
            connection = upstream.subscribe(subject)
        }
        #expect(released == nil)
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.cancelled])
        connection.cancel()
    }
}
