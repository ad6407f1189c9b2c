import Reactive
import Testing

@Suite struct ScanTests {
    @Test func runningTotals() {
        #expect([1, 2, 3].publisher.scan(0, +).track().values == [1, 3, 6])
    }

    @Test func tryScanFails() {
        let tracker = [1, -1, 2].publisher.tryScan(0) { total, next in
            guard next >= 0 else { throw TestError() }
            return total + next
        }.track()
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)")])
    }

    @Test func tryScanFoldsInValuesThatComeAfterAThrowButFailsOnlyOnce() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.tryScan(0) { total, next in
            if next < 0 { throw TestError() }
            return total + next
        }.track()
        upstream.subscribe()
        upstream.send(1)
        upstream.send(-1)
        upstream.send(2)
        upstream.send(-2)
        upstream.send(completion: .finished)
        #expect(tracker.events == [.subscription, .value(1), .failure("TestError(1)"), .value(3)])
        #expect(upstream.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func tryScanDropsACompletionBeforeItsSubscriptionAndIgnoresACancelBeforeIt() throws {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.tryScan(0, +).track()
        upstream.send(completion: .finished)
        let inner = try #require(upstream.attached as? any Subscription)
        inner.cancel()
        upstream.subscribe()
        upstream.send(5)
        #expect(tracker.events == [.subscription, .value(5)])
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }
}
