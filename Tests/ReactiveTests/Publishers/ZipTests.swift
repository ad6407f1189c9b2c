import Reactive
import Testing

@Suite struct ZipTests {
    @Test func pairsInOrder() {
        let tracker = [1, 2, 3].publisher.zip(["a", "b"].publisher).map { "\($0)\($1)" }.track()
        #expect(tracker.events == [.subscription, .value("1a"), .value("2b"), .finished])
    }

    @Test func waitsForEachSide() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let tracker = a.zip(b).map { $0 * 10 + $1 }.track()
        a.send(1)
        a.send(2)
        #expect(tracker.values == [])
        b.send(1)
        #expect(tracker.values == [11])
        b.send(2)
        #expect(tracker.values == [11, 22])
    }

    @Test func zip3() {
        #expect(Just(1).zip(Just(2), Just(3)).map { $0 + $1 + $2 }.track().values == [6])
    }

    @Test func valuesAnUpstreamSendsBeyondDemandAreKeptForLaterTuples() {
        // An upstream that ignores demand (sends three after a request of one) loses nothing.
        struct Eager: Publisher {
            typealias Output = Int
            typealias Failure = Never
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                subscriber.receive(subscription: Subscriptions.empty)
                for value in 1...3 { _ = subscriber.receive(value) }
                subscriber.receive(completion: .finished)
            }
        }
        let other = PassthroughSubject<String, Never>()
        let tracker = TrackingSubscriber<String, Never>(initialDemand: .max(1))
        Eager().zip(other).map { "\($0)\($1)" }.subscribe(tracker)
        other.send("a")
        tracker.request(.unlimited)
        other.send("b")
        other.send("c")
        #expect(tracker.events == [.subscription, .value("1a"), .value("2b"), .value("3c"), .finished])
    }
}

/// Combine's bookkeeping around zip's children, as OpenCombine's suite (run against Combine) records it.
@Suite struct ZipCombineBookkeepingTests {
    @Test func aChildsSecondSubscriptionIsCancelled() {
        let a = ManualPublisher<Int, Never>()
        _ = a.zip(PassthroughSubject<Int, Never>()).map { $0 + $1 }.track()
        a.subscribe()
        let second = RecordingSubscription()
        a.subscribe(second)
        #expect(second.calls == [.cancelled])
        #expect(a.subscription.calls == [.requested(.unlimited)])
    }

    @Test func aChildThatFinishesWithNothingLeftIsNotCancelledButTheOthersAre() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let tracker = a.zip(b).map { $0 + $1 }.track()
        a.subscribe()
        b.subscribe()
        a.send(completion: .finished)
        #expect(tracker.events == [.subscription, .finished])
        #expect(a.subscription.calls == [.requested(.unlimited)])
        #expect(b.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func demandAskedForWhileATupleIsDeliveredIsReturnedToTheChildThatCompletedIt() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        var subscription: (any Subscription)?
        let sink = AnySubscriber<Int, Never>(
            receiveSubscription: {
                subscription = $0
                $0.request(.max(10))
            },
            receiveValue: { _ in
                subscription?.request(.max(666))
                return .max(1)
            })
        a.zip(b).map { $0 + $1 }.subscribe(sink)
        a.subscribe()
        b.subscribe()
        #expect(a.send(1) == .none)
        #expect(b.send(1) == .max(667))
        #expect(a.subscription.calls == [.requested(.max(10)), .requested(.max(666)), .requested(.max(1))])
        #expect(b.subscription.calls == [.requested(.max(10))])
    }

    @Test func aRequestOfZeroIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let tracker = PassthroughSubject<Int, Never>().zip(PassthroughSubject<Int, Never>()).map { $0 + $1 }
                .track(initialDemand: .none)
            tracker.request(.none)
        }
    }
}

/// Zip's delivery against the demand, as Combine's (OpenCombine's suite, run against Combine, records it).
@Suite struct ZipDemandTests {
    @Test func aTupleAChildsValueCompletesGoesOutEvenWithoutDemand() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let tracker = a.zip(b) { $0 + $1 }.track(initialDemand: .max(1))
        a.subscribe()
        b.subscribe()
        #expect(a.send(100) == .none)
        #expect(b.send(1) == .none)
        #expect(a.send(200) == .none)
        #expect(a.send(300) == .none)
        #expect(b.send(2) == .none)
        #expect(tracker.values == [101, 202])
        #expect(b.send(3) == .none)
        #expect(tracker.values == [101, 202, 303])
    }

    @Test func theDemandTheTupleReturnsGoesBackToTheChildThatCompletedIt() {
        let a = ManualPublisher<Int, Never>()
        let b = ManualPublisher<Int, Never>()
        let c = ManualPublisher<Int, Never>()
        let tracker = a.zip(b, c) { $0 + $1 + $2 }.track(initialDemand: .none, demandPerValue: .max(1))
        for child in [a, b, c] { child.subscribe() }
        #expect(a.send(1) == .none)
        #expect(b.send(1) == .none)
        #expect(c.send(1) == .max(1))
        #expect(tracker.events == [.subscription, .value(3)])
    }
}
