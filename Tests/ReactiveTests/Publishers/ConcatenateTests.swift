import Reactive
import Testing

@Suite struct ConcatenateTests {
    @Test func prependAndAppend() {
        #expect([3, 4].publisher.prepend(1, 2).append(5).track().values == [1, 2, 3, 4, 5])
    }

    @Test func theSuffixStartsOnlyAfterThePrefixFinishes() {
        let prefix = PassthroughSubject<Int, Never>()
        let tracker = prefix.append([9]).track()
        prefix.send(1)
        #expect(tracker.values == [1])
        prefix.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(1), .value(9), .finished])
    }

    @Test func demandCarriesOver() {
        let tracker = [1, 2].publisher.append(3, 4).track(initialDemand: .max(3))
        #expect(tracker.values == [1, 2, 3])
        tracker.request(.max(1))
        #expect(tracker.events.last == .finished)
    }
}

/// `append` and `prepend` as Combine's: what a link sends before its subscription is ignored.
@Suite struct ConcatenateMisuseTests {
    @Test func aValueOrCompletionBeforeTheLinksSubscriptionIsIgnored() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.append(1, 2).track()
        #expect(upstream.send(12) == .none)
        upstream.send(completion: .finished)
        #expect(tracker.events == [])
        upstream.subscribe()
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(3), .value(1), .value(2), .finished])
    }
}

/// `append`/`prepend` towards the prefix and the suffix, as Combine's.
@Suite struct ConcatenateLinkTests {
    @Test func aPrefixValueSentFromInsideADeliveryBeyondTheDemandIsDropped() {
        let prefix = ManualPublisher<Int, Never>()
        var recursion = 10
        let tracker = TrackingSubscriber<Int, Never>(initialDemand: .max(3)) { value in
            guard recursion > 0 else { return }
            recursion -= 1
            #expect(prefix.send(value + 1) == .none)
        }
        prefix.append().subscribe(tracker)
        prefix.subscribe()
        prefix.send(1)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .value(3)])
    }

    @Test func theSuffixIsAskedForWhatIsOutstandingAndPassesItsDemandThrough() {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let tracker = prefix.append(suffix).track(initialDemand: .max(2), demandPerValue: .max(5))
        prefix.subscribe()
        #expect(prefix.send(1) == .max(5))
        prefix.send(completion: .finished)
        suffix.subscribe()
        #expect(suffix.subscription.calls == [.requested(.max(6))])
        #expect(suffix.send(2) == .max(5))
        tracker.request(.max(1))
        #expect(suffix.subscription.calls == [.requested(.max(6)), .requested(.max(1))])
        suffix.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func thePrefixAndTheSuffixHaveSubscribersOfTwoTypesUnderTheSubscriptionsIdentity() throws {
        let prefix = ManualPublisher<Int, Never>()
        let suffix = ManualPublisher<Int, Never>()
        let tracker = prefix.append(suffix).track()
        prefix.subscribe()
        prefix.send(completion: .finished)
        let subscription = try #require(tracker.subscription)
        let prefixSubscriber = try #require(prefix.attached as? any Subscriber)
        let suffixSubscriber = try #require(suffix.attached as? any Subscriber)
        #expect(prefixSubscriber.combineIdentifier == subscription.combineIdentifier)
        #expect(suffixSubscriber.combineIdentifier == subscription.combineIdentifier)
        #expect(type(of: prefixSubscriber) != type(of: suffixSubscriber))
        #expect("\(prefixSubscriber)" == "Concatenate")
        #expect("\(suffixSubscriber)" == "Concatenate")
    }

    @Test func aCancelLetsGoOfTheSuffix() throws {
        weak var released: ManualPublisher<Int, Never>?
        let prefix = ManualPublisher<Int, Never>()
        let tracker: TrackingSubscriber<Int, Never>
        do {
            let suffix = ManualPublisher<Int, Never>()
            released = suffix
            tracker = prefix.append(suffix).track()
        }
        prefix.subscribe()
        #expect(released != nil)
        tracker.cancel()
        #expect(released == nil)
        #expect(prefix.subscription.calls == [.requested(.unlimited), .cancelled])
    }
}
