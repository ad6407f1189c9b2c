import Reactive
import Testing

@Suite struct FlatMapTests {
    @Test func mergesInnerPublishers() {
        let tracker = [1, 2, 3].publisher.flatMap { Just($0 * 2) }.track()
        #expect(tracker.events == [.subscription, .value(2), .value(4), .value(6), .finished])
    }

    @Test func maxPublishersLimitsConcurrentInners() {
        let inners = (0..<3).map { _ in PassthroughSubject<Int, Never>() }
        // A sequence honours demand, so the second inner is only requested once the first finishes.
        let tracker = inners.publisher.flatMap(maxPublishers: .max(1)) { $0 }.track()
        inners[1].send(10)  // not subscribed yet: the first is still live
        inners[0].send(1)
        inners[0].send(completion: .finished)
        inners[1].send(11)
        #expect(tracker.values == [1, 11])
    }

    @Test func buffersWhenThereIsNoDemand() {
        let outer = PassthroughSubject<Int, Never>()
        let tracker = outer.flatMap { Just($0) }.track(initialDemand: .max(1))
        outer.send(1)
        outer.send(2)
        outer.send(3)
        #expect(tracker.values == [1])
        tracker.request(.max(2))
        #expect(tracker.values == [1, 2, 3])
    }

    @Test func anInnerFailureFailsEverything() {
        let outer = PassthroughSubject<Int, TestError>()
        let tracker = outer.flatMap { value -> AnyPublisher<Int, TestError> in
            value < 0
                ? Fail(error: TestError(code: value)).eraseToAnyPublisher()
                : Just(value).setFailureType(to: TestError.self).eraseToAnyPublisher()
        }.track()
        outer.send(1)
        outer.send(-5)
        outer.send(2)
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(-5)")])
    }

    @Test func finishesWhenOuterAndAllInnersFinish() {
        let outer = PassthroughSubject<Int, Never>()
        let inner = PassthroughSubject<Int, Never>()
        let tracker = outer.flatMap { _ in inner }.track()
        outer.send(0)
        outer.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        inner.send(completion: .finished)
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func childrenAreAskedForEverythingWhileTheDownstreamDemandIsUnlimited() {
        var requests: [String] = []
        let tracker = Just(1).flatMap { value in
            [value, value + 1].publisher.handleEvents(receiveRequest: { requests.append("\($0)") })
        }.track()
        #expect(tracker.values == [1, 2])
        #expect(requests == ["unlimited"])
    }

    @Test func childrenAreAskedForOneAtATimeWhileTheDownstreamDemandIsLimited() {
        var requests: [String] = []
        let tracker = Just(1).flatMap { value in
            [value, value + 1].publisher.handleEvents(receiveRequest: { requests.append("\($0)") })
        }.track(initialDemand: .max(5))
        #expect(tracker.values == [1, 2])
        #expect(requests.first == "max(1)")
    }
}

/// `flatMap` over `Just` children behaves exactly like the general path (here an erased `Just`, which cannot
/// take the shortcut): the same events under every demand pattern, and a limited outer is replenished.
@Suite struct FlatMapOverJustTests {
    static let demands: [(initial: Int, perValue: Int)] = [(0, 0), (1, 0), (1, 1), (2, 0), (5, 0), (-1, 0)]

    @Test(arguments: demands.indices)
    func aJustChildGivesTheSameEventsAsAnyOtherChild(index: Int) {
        let (initial, perValue) = Self.demands[index]
        let initialDemand: Subscribers.Demand = initial < 0 ? .unlimited : .max(initial)
        func run<P: Publisher<Int, Never>>(_ transform: @escaping (Int) -> P) -> [Event<Int>] {
            let outer = PassthroughSubject<Int, Never>()
            let tracker = TrackingSubscriber<Int, Never>(
                initialDemand: initialDemand, demandPerValue: .max(perValue))
            outer.flatMap(transform).subscribe(tracker)
            for value in 1...4 { outer.send(value) }
            outer.send(completion: .finished)
            tracker.request(.max(1))
            return tracker.events
        }
        let shortcut = run { Just($0 * 10) }
        let general = run { Just($0 * 10).eraseToAnyPublisher() }
        #expect(shortcut == general)
        #expect(shortcut.first == .subscription)
    }

    @Test func aLimitedOuterIsAskedForTheNextValueAsEachJustFinishes() {
        let tracker = [1, 2, 3].publisher.flatMap(maxPublishers: .max(1)) { Just($0) }.track()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .value(3), .finished])
    }

    @Test func cancellingFromTheSinkStopsTheNextJusts() {
        let outer = PassthroughSubject<Int, Never>()
        var seen: [Int] = []
        var token: AnyCancellable?
        token = outer.flatMap { Just($0) }.sink { value in
            seen.append(value)
            if value == 2 { token?.cancel() }
        }
        for value in 1...4 { outer.send(value) }
        #expect(seen == [1, 2])
        _ = token
    }
}

/// Combine's bookkeeping around the children, as OpenCombine's suite (run against Combine) records it.
@Suite struct FlatMapCombineBookkeepingTests {
    typealias Child = ManualPublisher<Int, TestError>

    @Test func theDownstreamGetsItsSubscriptionBeforeTheUpstreamIsSubscribedTo() {
        let upstream = ManualPublisher<Child, TestError>()
        let tracker = upstream.flatMap(maxPublishers: .max(2)) { $0 }.track()
        #expect(tracker.events == [.subscription])
        #expect(upstream.subscription.calls == [])
        upstream.subscribe()
        #expect(upstream.subscription.calls == [.requested(.max(2))])
    }

    @Test func aFailingChildCancelsTheOthersButNeitherItselfNorTheUpstream() {
        let upstream = ManualPublisher<Child, TestError>()
        let children = [Child(), Child(), Child()]
        let tracker = upstream.flatMap { $0 }.track()
        upstream.subscribe()
        for child in children {
            upstream.send(child)
            child.subscribe()
        }
        children[1].send(completion: .failure(TestError(code: 3)))
        children[2].send(completion: .failure(TestError(code: 4)))
        #expect(tracker.events == [.subscription, .failure("TestError(3)")])
        #expect(children[0].subscription.calls == [.requested(.unlimited), .cancelled])
        #expect(children[1].subscription.calls == [.requested(.unlimited)])
        #expect(children[2].subscription.calls == [.requested(.unlimited), .cancelled])
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }

    @Test func anUpstreamFailureCancelsTheChildrenButNotTheUpstream() {
        let upstream = ManualPublisher<Child, TestError>()
        let child = Child()
        let tracker = upstream.flatMap(maxPublishers: .max(3)) { $0 }.track(initialDemand: .max(1))
        upstream.subscribe()
        upstream.send(child)
        child.subscribe()
        upstream.send(completion: .failure(TestError(code: 6)))
        upstream.send(completion: .failure(TestError(code: 7)))
        #expect(tracker.events == [.subscription, .failure("TestError(6)")])
        #expect(child.subscription.calls == [.requested(.max(1)), .cancelled])
        #expect(upstream.subscription.calls == [.requested(.max(3))])
    }

    @Test func aDemandTurnedUnlimitedAsksEveryLiveChildForEverything() {
        let upstream = ManualPublisher<Child, TestError>()
        let child = Child()
        let tracker = upstream.flatMap { $0 }.track(initialDemand: .max(3))
        upstream.subscribe()
        upstream.send(child)
        child.subscribe()
        #expect(child.subscription.calls == [.requested(.max(1))])
        tracker.request(.unlimited)
        #expect(child.subscription.calls == [.requested(.max(1)), .requested(.unlimited)])
        #expect(child.send(1) == .none)
        #expect(tracker.values == [1])
    }

    @Test func theChildSubscriberDescribesItselfAsCombines() throws {
        let upstream = ManualPublisher<Child, TestError>()
        let child = Child()
        let tracker = upstream.flatMap { $0 }.track()
        upstream.subscribe()
        upstream.send(child)
        #expect((child.attached as? any CustomStringConvertible)?.description == "FlatMap")
        let identifier = try #require(tracker.subscription?.combineIdentifier)
        let mirror = try #require((child.attached as? any CustomReflectable)?.customMirror)
        #expect(mirror.children.map { $0.label } == ["parentSubscription"])
        #expect(mirror.children.map { "\($0.value)" } == ["\(identifier)"])
    }

    @Test func aRequestOfZeroIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let tracker = ManualPublisher<Child, TestError>().flatMap { $0 }.track(initialDemand: .none)
            tracker.request(.none)
        }
    }

    @Test func anUpstreamFailingAgainWhileItsChildrenAreCancelledIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<AnyPublisher<Int, TestError>, TestError>()
            let tracker = upstream.flatMap { $0 }.track()
            upstream.subscribe()
            upstream.send(
                Empty(completeImmediately: false).handleEvents(receiveCancel: {
                    upstream.send(completion: .failure(TestError()))
                }).eraseToAnyPublisher())
            upstream.send(completion: .failure(TestError()))
            tracker.cancel()
        }
    }
}

/// `flatMap` re-entered from inside its own calls, as Combine's (OpenCombine's suite, run against Combine,
/// records it).
@Suite struct FlatMapReentranceTests {
    @Test func aChildsValueSentFromInsideAnotherDeliveryGoesOutNestedAndItsDemandIsReturned() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        var nested: Subscribers.Demand?
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(2)) { value in
            if value == 666 { nested = second.send(777) }
        }
        upstream.flatMap { $0 }.subscribe(tracker)
        upstream.subscribe()
        upstream.send(first)
        upstream.send(second)
        first.subscribe()
        second.subscribe()
        #expect(first.send(666) == .max(1))
        #expect(nested == .max(1))
        #expect(tracker.values == [666, 777])
        #expect(first.subscription.calls == [.requested(.max(1))])
        #expect(second.subscription.calls == [.requested(.max(1))])
    }

    @Test func aChildsValueSentFromInsideItsRequestIsBuffered() {
        let upstream = ManualPublisher<Int, Never>()
        let child = ManualPublisher<Int, Never>()
        var armed = false
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .none)
        upstream.flatMap { _ in
            child.handleEvents(receiveRequest: { _ in
                guard armed else { return }
                armed = false
                #expect(child.send(42) == .none)
            })
        }.subscribe(tracker)
        upstream.subscribe()
        upstream.send(0)
        child.subscribe()
        child.send(1)
        child.send(2)
        armed = true
        tracker.request(.max(2))
        #expect(tracker.values == [1, 2])
        tracker.request(.max(1))
        #expect(tracker.values == [1, 2, 42])
    }

    @Test func everyFinishOfAChildAsksALimitedUpstreamForOneMore() {
        let upstream = ManualPublisher<ManualPublisher<Int, Never>, Never>()
        let child = ManualPublisher<Int, Never>()
        _ = upstream.flatMap(maxPublishers: .max(1)) { $0 }.track(initialDemand: .none)
        upstream.subscribe()
        upstream.send(child)
        child.subscribe()
        child.send(completion: .finished)
        child.send(completion: .finished)
        #expect(upstream.subscription.calls == [.requested(.max(1)), .requested(.max(1)), .requested(.max(1))])
    }

    @Test func aChildsValueSentFromInsideTheFailuresDeliveryStillGoesOut() {
        let upstream = ManualPublisher<ManualPublisher<Int, TestError>, TestError>()
        let child = ManualPublisher<Int, TestError>()
        var sentAfter = false
        let tracker = TrackingSubscriber<Int, TestError>(initialDemand: .max(5))
        let failing = TrackingOnFailure(tracker) {
            guard !sentAfter else { return }
            sentAfter = true
            _ = child.send(1)
        }
        upstream.flatMap(maxPublishers: .max(1)) { $0 }.subscribe(failing)
        upstream.subscribe()
        upstream.send(child)
        child.subscribe()
        child.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .failure("TestError(1)"), .value(1)])
        #expect(child.subscription.calls == [.requested(.max(1))])
    }
}

/// Passes every event to a tracking subscriber, and runs `onFailure` after a failure reached it.
private struct TrackingOnFailure<Value: Equatable>: Subscriber {
    typealias Input = Value
    typealias Failure = TestError
    let tracker: TrackingSubscriber<Value, TestError>
    let onFailure: () -> Void
    let combineIdentifier = CombineIdentifier()

    init(_ tracker: TrackingSubscriber<Value, TestError>, onFailure: @escaping () -> Void) {
        self.tracker = tracker
        self.onFailure = onFailure
    }

    func receive(subscription: any Subscription) { tracker.receive(subscription: subscription) }
    func receive(_ input: Value) -> Subscribers.Demand { tracker.receive(input) }
    func receive(completion: Subscribers.Completion<TestError>) {
        tracker.receive(completion: completion)
        if case .failure = completion { onFailure() }
    }
}
