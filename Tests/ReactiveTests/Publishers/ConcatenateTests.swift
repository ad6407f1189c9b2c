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
