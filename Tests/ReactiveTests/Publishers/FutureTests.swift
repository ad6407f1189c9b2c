import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct FutureTests {
    @Test func runsOnceAndReplaysTheResultToEverySubscriber() {
        var runs = 0
        let future = Future<Int, Never> { promise in
            runs += 1
            promise(.success(7))
        }
        #expect(future.track().values == [7])
        #expect(future.track().values == [7])
        #expect(runs == 1)
    }

    @Test func fulfilledLaterFromAnotherThread() {
        let future = Future<Int, TestError> { promise in
            nonisolated(unsafe) let promise = promise
            DispatchQueue.global().async { promise(.failure(TestError(code: 3))) }
        }
        let tracker = future.track()
        #expect(waitUntil { tracker.events.count == 2 })
        #expect(tracker.events == [.subscription, .failure("TestError(3)")])
    }

    @Test func onlyTheFirstResultCounts() {
        let future = Future<Int, Never> { promise in
            promise(.success(1))
            promise(.success(2))
        }
        #expect(future.track().values == [1])
    }

    @Test func anAlreadyFailedFutureFailsASubscriberThatHasNotRequestedAnything() {
        let failed = Future<Int, TestError> { $0(.failure(TestError(code: 2))) }
        #expect(failed.track(initialDemand: .none).events == [.subscription, .failure("TestError(2)")])
        let succeeded = Future<Int, TestError> { $0(.success(1)) }
        let waiting = succeeded.track(initialDemand: .none)
        #expect(waiting.events == [.subscription])
        waiting.request(.max(1))
        #expect(waiting.events == [.subscription, .value(1), .finished])
    }

    @Test func valueAwaitsTheResult() async throws {
        #expect(await Future<Int, Never> { $0(.success(42)) }.value == 42)
        do {
            _ = try await Future<Int, TestError> { $0(.failure(TestError(code: 6))) }.value
            Issue.record("expected the failure")
        } catch {
            #expect(error as? TestError == TestError(code: 6))
        }
    }
}

@Suite struct FutureDemandTests {
    @Test func aRequestOfZeroTraps() async {
        await #expect(processExitsWith: .failure) {
            let tracker = Future<Int, Never> { $0(.success(1)) }.track(initialDemand: .none)
            tracker.request(.none)
        }
    }

    @Test func aJustRequestOfZeroTraps() async {
        await #expect(processExitsWith: .failure) {
            let tracker = Just(1).track(initialDemand: .none)
            tracker.request(.none)
        }
    }

    @Test func aCancelledSubscriberOfAFutureNotYetResolvedIsLetGoOf() {
        final class Owner {}
        weak var weakOwner: Owner?
        let future = Future<Int, Never> { _ in }
        do {
            let owner = Owner()
            weakOwner = owner
            let token = future.sink { _ in _ = owner }
            token.cancel()
        }
        #expect(weakOwner == nil)
        withExtendedLifetime(future) {}
    }

    @Test func itsSubscriptionNamesTheFutureUntilAResultIsDeliveredOnFulfilment() throws {
        var promise: Future<Int, Never>.Promise?
        let future = Future<Int, Never> { promise = $0 }
        let tracker = future.track()
        let subscription = try #require(tracker.subscription)
        let parent = { Mirror(reflecting: subscription).children.first { $0.label == "parent" }?.value }
        #expect(parent().map { "\($0)" }?.contains("Future") == true)
        promise?(.success(1))
        #expect(tracker.events == [.subscription, .value(1), .finished])
        #expect(parent().map { "\($0)" } == "nil")
    }
}
