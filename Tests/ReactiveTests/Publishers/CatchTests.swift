import Reactive
import Testing

/// `catch` and `tryCatch` towards the upstream, the recovery publisher and the downstream, as Combine's.
@Suite struct CatchTests {
    @Test func theRecoveryPublisherIsAskedForTheDemandStillOutstandingIncludingWhatValuesReturned() {
        let upstream = ManualPublisher<Int, TestError>()
        let recovery = ManualPublisher<Int, Never>()
        let tracker = upstream.catch { _ in recovery }.track(initialDemand: .max(2), demandPerValue: .max(3))
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .failure(TestError()))
        recovery.subscribe()
        #expect(recovery.subscription.calls == [.requested(.max(4))])
        recovery.send(9)
        #expect(tracker.events == [.subscription, .value(1), .value(9)])
        #expect(tracker.subscription.map { String(describing: $0) } == "Catch")
    }

    @Test func aRequestWhileTheRecoveryPublisherIsBeingSubscribedToIsAddedToWhatItIsAskedFor() {
        let upstream = ManualPublisher<Int, TestError>()
        let recovery = ManualPublisher<Int, Never>()
        let tracker = upstream.catch { _ in recovery }.track(initialDemand: .max(1))
        upstream.subscribe()
        upstream.send(completion: .failure(TestError()))
        tracker.request(.max(5))
        recovery.subscribe()
        #expect(recovery.subscription.calls == [.requested(.max(6))])
        #expect(upstream.subscription.calls == [.requested(.max(1))])
    }

    @Test func aCancelReachesWhicheverPublisherIsCurrent() {
        let upstream = ManualPublisher<Int, TestError>()
        let recovery = ManualPublisher<Int, Never>()
        let tracker = upstream.catch { _ in recovery }.track()
        upstream.subscribe()
        upstream.send(completion: .failure(TestError()))
        recovery.subscribe()
        tracker.cancel()
        tracker.cancel()
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
        #expect(recovery.subscription.calls == [.requested(.unlimited), .cancelled])
    }

    @Test func aFinishedUpstreamIsNeverReplaced() {
        var handled = 0
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = upstream.catch { _ in
            handled += 1
            return Just(0)
        }.track()
        upstream.subscribe()
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(TestError()))
        #expect(handled == 0)
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func aThrowingHandlerFailsTheDownstreamOnceAndLaterValuesStillPass() {
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = upstream.tryCatch { _ -> Just<Int> in throw TestError(code: 2) }.track()
        upstream.subscribe()
        upstream.send(completion: .failure(TestError()))
        upstream.send(5)
        upstream.send(completion: .finished)
        #expect(tracker.events == [.subscription, .failure("TestError(2)"), .value(5)])
    }

    @Test func aValueBeyondTheDemandIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            let tracker = upstream.catch { _ in Just(0) }.track(initialDemand: .none)
            upstream.subscribe()
            upstream.send(1)
            tracker.cancel()
        }
    }

    @Test func anUpstreamThatFailsAgainWhileRecoveringIsAProgrammingError() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, TestError>()
            let tracker = upstream.catch { _ in ManualPublisher<Int, TestError>() }.track()
            upstream.subscribe()
            upstream.send(completion: .failure(TestError()))
            upstream.send(completion: .failure(TestError()))
            tracker.cancel()
        }
    }
}
