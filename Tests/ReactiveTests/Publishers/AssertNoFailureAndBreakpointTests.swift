import Glibc
import Reactive
import Testing

@Suite struct AssertNoFailureAndBreakpointTests {
    @Test func assertNoFailureRepublishesWhatNeverFails() {
        let tracker = [1, 2].publisher.setFailureType(to: TestError.self).assertNoFailure().track()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func assertNoFailureStopsTheProcessOnAFailure() async {
        await #expect(processExitsWith: .failure) {
            _ = Fail<Int, TestError>(error: TestError()).assertNoFailure("boom").sink { _ in }
        }
    }

    @Test func breakpointsThatDoNotFireRepublishEverything() {
        let tracker = [1, 2].publisher.breakpoint(receiveOutput: { $0 > 5 }).breakpointOnError().track()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }

    @Test func breakpointPassesOnTheUpstreamsSubscriptionAndEveryEventEvenAfterTheCompletion() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.breakpoint(receiveOutput: { $0 < 0 }).track()
        upstream.subscribe()
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(2)
        #expect(tracker.events == [.subscription, .value(1), .finished, .value(2)])
        #expect(tracker.subscription.map { String(describing: $0) } == "RecordingSubscription")
    }

    @Test func aBreakpointOnAValueThatComesAfterTheCompletionStillStops() async {
        // Without a debugger the process ends of the SIGTRAP, as on Apple's platforms (the Swift runtime's
        // backtracer would otherwise print a backtrace and go on).
        await #expect(processExitsWith: .signal(SIGTRAP)) {
            let upstream = ManualPublisher<Int, Never>()
            let token = upstream.breakpoint(receiveOutput: { $0 < 0 }).sink { _ in }
            upstream.subscribe()
            upstream.send(completion: .finished)
            upstream.send(-1)
            token.cancel()
        }
    }
}
