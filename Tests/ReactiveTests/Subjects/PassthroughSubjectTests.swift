import Dispatch
import Reactive
import Synchronization
import Testing

@Suite struct PassthroughSubjectTests {
    @Test func deliversValuesThenCompletionAndNothingAfter() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = TrackingSubscriber<Int, TestError>()
        subject.subscribe(tracker)
        subject.send(1)
        subject.send(2)
        subject.send(completion: .failure(TestError()))
        subject.send(3)
        subject.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .failure("TestError(1)")])
    }

    @Test func lateSubscriberGetsOnlyTheCompletion() {
        let subject = PassthroughSubject<Int, Never>()
        subject.send(completion: .finished)
        let tracker = TrackingSubscriber<Int, Never>()
        subject.subscribe(tracker)
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func dropsValuesWhenTheSubscriberHasNoDemand() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1))
        subject.subscribe(tracker)
        subject.send(1)
        subject.send(2)
        tracker.request(.max(1))
        subject.send(3)
        subject.send(4)
        #expect(tracker.values == [1, 3])
    }

    @Test func aFiniteDemandNearTheLargestAddsUpWithoutStalling() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(Int.max - 1), demandPerValue: .max(Int.max))
        subject.subscribe(tracker)
        for value in 1...3 { subject.send(value) }
        tracker.request(.max(Int.max))
        subject.send(4)
        #expect(tracker.values == [1, 2, 3, 4])
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        subject.subscribe(tracker)
        for value in 1...5 { subject.send(value) }
        #expect(tracker.values == [1, 2, 3, 4, 5])
    }

    @Test func cancelStopsDeliveryMidStreamAndReleasesTheSubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakTracker: TrackingSubscriber<Int, Never>?
        do {
            let tracker = TrackingSubscriber<Int, Never>()
            weakTracker = tracker
            subject.subscribe(tracker)
            subject.send(1)
            tracker.cancel()
            subject.send(2)
            #expect(tracker.events == [.subscription, .value(1)])
        }
        #expect(weakTracker == nil)
    }

    @Test func broadcastsToEverySubscriberInSubscriptionOrder() {
        let subject = PassthroughSubject<String, Never>()
        let log = Mutex<[String]>([])
        let a = subject.sink { value in log.withLock { $0.append("a:\(value)") } }
        let b = subject.sink { value in log.withLock { $0.append("b:\(value)") } }
        subject.send("x")
        b.cancel()
        subject.send("y")
        a.cancel()
        #expect(log.withLock { $0 } == ["a:x", "b:x", "a:y"])
    }

    @Test func cancellingSomeSubscribersKeepsTheOthersInSubscriptionOrder() {
        let subject = PassthroughSubject<Int, Never>()
        let log = Mutex<[Int]>([])
        var tokens = (0..<40).map { index in subject.sink { _ in log.withLock { $0.append(index) } } }
        // The first one, then every other one: more than half of the slots become holes (and are compacted).
        for index in stride(from: 0, to: 40, by: 2) { tokens[index].cancel() }
        tokens[1].cancel()
        tokens += (40..<43).map { index in subject.sink { _ in log.withLock { $0.append(index) } } }
        subject.send(0)
        let expected = Array(stride(from: 3, to: 40, by: 2)) + [40, 41, 42]
        #expect(log.withLock { $0 } == expected)
        for token in tokens.dropLast() { token.cancel() }
        log.withLock { $0 = [] }
        subject.send(1)
        #expect(log.withLock { $0 } == [42])
        tokens.last?.cancel()
        let late = subject.sink { _ in log.withLock { $0.append(99) } }
        subject.send(2)
        #expect(log.withLock { $0 } == [42, 99])
        late.cancel()
    }

    @Test func sendFromInsideASinkDoesNotDeadlockAndKeepsOrder() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        let token = subject.sink { value in
            received.append(value)
            if value < 3 { subject.send(value + 1) }
        }
        subject.send(0)
        token.cancel()
        #expect(received == [0, 1, 2, 3])
    }

    @Test func sendsFromManyThreadsAllArriveAndNeverOverlap() {
        let subject = PassthroughSubject<Int, Never>()
        let inside = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let count = Atomic<Int>(0)
        let token = subject.sink { _ in
            if inside.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue > 1 {
                overlapped.store(true, ordering: .relaxed)
            }
            count.wrappingAdd(1, ordering: .relaxed)
            inside.wrappingAdd(-1, ordering: .acquiringAndReleasing)
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for value in 0..<2_000 { subject.send(thread * 10_000 + value) }
        }
        token.cancel()
        let (delivered, didOverlap) = (count.load(ordering: .relaxed), overlapped.load(ordering: .relaxed))
        #expect(delivered == 16_000)
        #expect(!didOverlap)
    }

    @Test func subscribingAndCancellingFromManyThreadsIsSafe() {
        let subject = PassthroughSubject<Int, Never>()
        let received = Atomic<Int>(0)
        let keeper = subject.sink { _ in received.wrappingAdd(1, ordering: .relaxed) }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for value in 0..<500 {
                let token = subject.sink { _ in }
                subject.send(thread * 1_000 + value)
                token.cancel()
            }
        }
        keeper.cancel()
        let delivered = received.load(ordering: .relaxed)
        #expect(delivered == 2_000)
    }

    @Test func droppingTheCancellableCancels() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        var token: AnyCancellable? = subject.sink { received.append($0) }
        subject.send(1)
        token = nil
        subject.send(2)
        #expect(received == [1])
        #expect(token == nil)
    }

    @Test func actsAsASubscriberOfAnotherPublisher() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>()
        subject.subscribe(tracker)
        let connection = [1, 2, 3].publisher.subscribe(subject)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .value(3), .finished])
        connection.cancel()
    }

    // Nested sends, as Combine delivers them: the subject releases its lock before calling downstream, so a send
    // from inside a sink reaches every subscriber before the outer send returns.

    @Test func aSendFromInsideASinkIsDeliveredNestedBeforeTheOuterValueFinishes() {
        let subject = PassthroughSubject<Int, Never>()
        var log: [String] = []
        let token = subject.sink { value in
            log.append("begin \(value)")
            if value == 1 { subject.send(2) }
            log.append("end \(value)")
        }
        subject.send(1)
        token.cancel()
        #expect(log == ["begin 1", "begin 2", "end 2", "end 1"])
    }

    @Test func aNestedSendReachesLaterSubscribersBeforeTheValueThatCausedIt() {
        #expect(logOfANestedSend(on: PassthroughSubject<Int, Never>()) == ["a1", "a2", "b2", "b1"])
    }

    @Test func aCompletionSentFromInsideASinkArrivesNestedAndEndsTheStream() {
        let subject = PassthroughSubject<Int, Never>()
        var log: [String] = []
        let token = subject.sink(
            receiveCompletion: { _ in log.append("finished") },
            receiveValue: { value in
                log.append("begin \(value)")
                subject.send(completion: .finished)
                subject.send(99)
                log.append("end \(value)")
            })
        subject.send(1)
        subject.send(2)
        #expect(log == ["begin 1", "finished", "end 1"])
        token.cancel()
    }

    @Test func cancellingFromInsideTheSinkStopsNestedDeliveryAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        var received: [Int] = []
        var token: AnyCancellable?
        token = subject.sink { value in
            received.append(value)
            token?.cancel()
            subject.send(value + 1)
        }
        subject.send(1)
        subject.send(5)
        #expect(received == [1])
    }

    @Test func sinksOnTwoThreadsSendingIntoEachOthersSubjectsDoNotDeadlock() async {
        // With a lock held across delivery (a recursive lock per subscriber) the two threads below would each
        // hold one subscriber and wait for the other's.
        let left = PassthroughSubject<Int, Never>()
        let right = PassthroughSubject<Int, Never>()
        let delivered = Atomic<Int>(0)
        let tokens = [
            left.sink { hops in
                delivered.wrappingAdd(1, ordering: .relaxed)
                if hops > 0 { right.send(hops - 1) }
            },
            right.sink { hops in
                delivered.wrappingAdd(1, ordering: .relaxed)
                if hops > 0 { left.send(hops - 1) }
            },
        ]
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            for _ in 0..<500 { (thread == 0 ? left : right).send(3) }
        }
        tokens.forEach { $0.cancel() }
        #expect(delivered.load(ordering: .relaxed) == 2 * 500 * 4)
    }

    @Test func asASubscriberItRequestsFromItsUpstreamOnlyOnceADownstreamHasDemand() {
        let subject = PassthroughSubject<Int, Never>()
        var requests: [String] = []
        let upstream = PassthroughSubject<Int, Never>()
        let connection = upstream.handleEvents(receiveRequest: { requests.append("\($0)") }).subscribe(subject)
        #expect(requests == [])
        let tracker = subject.track(initialDemand: .none)
        #expect(requests == [])
        tracker.request(.max(1))
        #expect(requests == ["unlimited"])
        upstream.send(4)
        #expect(tracker.values == [4])
        connection.cancel()
    }

    @Test func anUpstreamArrivingOnceDemandWasUsedUpIsStillAskedForEverythingAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.track(initialDemand: .max(1))
        subject.send(1)
        let upstream = RecordingSubscription()
        subject.send(subscription: upstream)
        #expect(upstream.calls == [.requested(.unlimited)])
        #expect(tracker.values == [1])
    }

    @Test func releasingTheSubjectCancelsTheUpstreamsItWasGiven() {
        final class Upstream: Subscription {
            var cancelled = false
            func request(_ demand: Subscribers.Demand) {}
            func cancel() { cancelled = true }
        }
        let upstream = Upstream()
        do {
            let subject = PassthroughSubject<Int, Never>()
            subject.send(subscription: upstream)
        }
        #expect(upstream.cancelled)
    }

    @Test func requestingZeroIsAPreconditionFailure() async {
        await #expect(processExitsWith: .failure) {
            let subject = PassthroughSubject<Int, Never>()
            final class Zero: Subscriber {
                typealias Input = Int
                typealias Failure = Never
                func receive(subscription: any Subscription) { subscription.request(.none) }
                func receive(_ input: Int) -> Subscribers.Demand { .none }
                func receive(completion: Subscribers.Completion<Never>) {}
            }
            subject.subscribe(Zero())
        }
    }
}

/// A subject's subscription (its conduit) as Combine's: it holds the subject and the subscriber until it ends,
/// and mirrors them with the demand.
@Suite struct SubjectConduitMirrorTests {
    private func children(_ subscription: (any Subscription)?) -> [String] {
        guard let subscription else { return [] }
        return Mirror(reflecting: subscription).children.map { "\($0.label ?? ""): \($0.value)" }
    }

    @Test func aConduitMirrorsItsSubjectSubscriberAndDemandUntilItEnds() throws {
        let subject = PassthroughSubject<Int, Never>()
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(12))
        subject.subscribe(tracker)
        subject.send(1)
        let live = children(tracker.subscription)
        #expect(live.map { $0.prefix(while: { $0 != ":" }) } == ["parent", "downstream", "demand", "subject"])
        #expect(live[0] == "parent: Optional(Reactive.PassthroughSubject<Swift.Int, Swift.Never>)")
        #expect(live[1].contains("TrackingSubscriber<Swift.Int, Swift.Never>"))
        #expect(live[2] == "demand: max(11)")
        tracker.cancel()
        tracker.request(.max(3))
        let ended = children(tracker.subscription)
        #expect(ended == ["parent: nil", "downstream: nil", "demand: max(11)", "subject: nil"])
    }

    @Test func anObservableObjectPublishersConduitMirrorsItsSubscriber() {
        let publisher = ObservableObjectPublisher()
        let tracker = TrackingSubscriber<Int, Never>()
        publisher.map { 0 }.subscribe(tracker)
        let subscription = tracker.subscription
        #expect(children(subscription).count == 1)
        #expect(children(subscription).first?.hasPrefix("downstream: ") == true)
    }

    @Test func aSubscriberKeepsItsSubjectAliveUntilItCancels() {
        weak var released: PassthroughSubject<Int, Never>?
        let tracker = TrackingSubscriber<Int, Never>()
        do {
            let subject = PassthroughSubject<Int, Never>()
            released = subject
            subject.subscribe(tracker)
        }
        #expect(released != nil)
        tracker.cancel()
        #expect(released == nil)
    }
}
