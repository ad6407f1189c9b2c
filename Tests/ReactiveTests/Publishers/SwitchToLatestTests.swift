import Reactive
import Testing

@Suite struct SwitchToLatestTests {
    @Test func followsOnlyTheLatestInner() {
        let outer = PassthroughSubject<PassthroughSubject<String, Never>, Never>()
        let first = PassthroughSubject<String, Never>()
        let second = PassthroughSubject<String, Never>()
        let tracker = outer.switchToLatest().track()
        outer.send(first)
        first.send("a")
        outer.send(second)
        first.send("stale")
        second.send("b")
        #expect(tracker.values == ["a", "b"])
    }

    @Test func cancelsThePreviousInner() {
        let outer = PassthroughSubject<AnyPublisher<Int, Never>, Never>()
        var cancels = 0
        let tracker = outer.switchToLatest().track()
        let inner = {
            PassthroughSubject<Int, Never>().handleEvents(receiveCancel: { cancels += 1 }).eraseToAnyPublisher()
        }
        outer.send(inner())
        outer.send(inner())
        #expect(cancels == 1)
        tracker.cancel()
        #expect(cancels == 2)
    }

    @Test func finishesAfterOuterAndCurrentInnerFinish() {
        let outer = PassthroughSubject<Just<Int>, Never>()
        let tracker = outer.switchToLatest().track()
        outer.send(Just(1))
        outer.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }

    @Test func neverFailingOuterWithFailingInners() {
        let urls = PassthroughSubject<Int, Never>()
        let tracker = urls.map { value -> AnyPublisher<Int, TestError> in
            Fail(error: TestError(code: value)).eraseToAnyPublisher()
        }.switchToLatest().track()
        urls.send(9)
        #expect(tracker.events == [.subscription, .failure("TestError(9)")])
    }
}

/// Combine's bookkeeping around the inner publishers, as OpenCombine's suite (run against Combine) records it.
@Suite struct SwitchToLatestCombineBookkeepingTests {
    typealias Inner = ManualPublisher<Int, TestError>

    @Test func theDownstreamGetsItsSubscriptionBeforeTheUpstreamIsSubscribedTo() {
        let outer = ManualPublisher<Inner, TestError>()
        let tracker = outer.switchToLatest().track()
        #expect(tracker.events == [.subscription])
        #expect(outer.subscription.calls == [])
        outer.subscribe()
        #expect(outer.subscription.calls == [.requested(.unlimited)])
    }

    @Test func aFailingInnerCancelsTheUpstreamButIsNotCancelledItself() {
        let outer = ManualPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = outer.switchToLatest().track(initialDemand: .max(1), demandPerValue: .max(1))
        outer.subscribe()
        outer.send(inner)
        inner.subscribe()
        inner.send(1)
        inner.send(completion: .failure(TestError(code: 4)))
        inner.send(completion: .failure(TestError(code: 5)))
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(4)")])
        #expect(inner.subscription.calls == [.requested(.max(1))])
        #expect(outer.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func anUpstreamFailureCancelsTheInnerWhoseLaterValueStillComes() {
        let outer = ManualPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = outer.switchToLatest().track(initialDemand: .max(1), demandPerValue: .max(100))
        outer.subscribe()
        outer.send(inner)
        inner.subscribe()
        outer.send(completion: .failure(TestError(code: 2)))
        #expect(inner.subscription.calls == [.requested(.max(1)), .cancelled])
        #expect(outer.subscription.calls == [.requested(.unlimited)])
        #expect(inner.send(7) == .max(100))
        #expect(tracker.events == [.subscription, .failure("TestError(2)"), .value(7)])
    }

    @Test func eachUpstreamCompletionIsPassedOnWhileNoInnerIsLive() {
        let outer = ManualPublisher<Inner, TestError>()
        let tracker = outer.switchToLatest().track()
        outer.subscribe()
        outer.send(completion: .finished)
        outer.send(completion: .failure(TestError()))
        outer.send(completion: .finished)
        #expect(tracker.events == [.subscription, .finished, .failure("TestError(1)"), .finished])
    }

    @Test func anInnerSubscribedToAfterTheUpstreamFinishedIsStillAskedForTheDemand() {
        let outer = ManualPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = outer.switchToLatest().track()
        outer.subscribe()
        outer.send(inner)
        outer.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        inner.subscribe()
        #expect(inner.subscription.calls == [.requested(.unlimited)])
        inner.send(completion: .finished)
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func cancellingReachesTheInnerAndTheUpstreamOnce() {
        let outer = ManualPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = outer.switchToLatest().track(initialDemand: .max(42))
        outer.subscribe()
        outer.send(inner)
        inner.subscribe()
        tracker.cancel()
        tracker.cancel()
        #expect(inner.subscription.calls == [.requested(.max(42)), .cancelled])
        #expect(outer.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func aSecondInnerSubscriptionIsCancelled() {
        let outer = ManualPublisher<Inner, TestError>()
        let inner = Inner()
        _ = outer.switchToLatest().track()
        outer.subscribe()
        outer.send(inner)
        inner.subscribe()
        let second = RecordingSubscription()
        inner.subscribe(second)
        #expect(second.calls == [.cancelled])
        #expect(inner.subscription.calls == [.requested(.unlimited)])
    }

    @Test func theInnerSubscriberDescribesItselfAsCombines() throws {
        let outer = ManualPublisher<Inner, TestError>()
        let inner = Inner()
        let tracker = outer.switchToLatest().track()
        outer.subscribe()
        outer.send(inner)
        let side = inner.attached
        #expect((side as? any CustomStringConvertible)?.description == "SwitchToLatest")
        let identifier = try #require(tracker.subscription?.combineIdentifier)
        let mirror = try #require((side as? any CustomReflectable)?.customMirror)
        #expect(mirror.children.map { $0.label } == ["parentSubscription"])
        #expect(mirror.children.map { "\($0.value)" } == ["\(identifier)"])
    }

    @Test func aValueBeyondTheDemandIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let outer = ManualPublisher<Inner, TestError>()
            let inner = Inner()
            let tracker = outer.switchToLatest().track(initialDemand: .none)
            outer.subscribe()
            outer.send(inner)
            inner.subscribe()
            inner.send(1)
            tracker.cancel()
        }
    }

    @Test func aRequestOfZeroIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let outer = ManualPublisher<Inner, TestError>()
            let tracker = outer.switchToLatest().track(initialDemand: .none)
            tracker.request(.none)
        }
    }

    @Test func anInnerCompletionBeforeItsSubscriptionIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let outer = ManualPublisher<Inner, TestError>()
            let inner = Inner()
            let tracker = outer.switchToLatest().track()
            outer.subscribe()
            outer.send(inner)
            inner.send(completion: .finished)
            tracker.cancel()
        }
    }
}
