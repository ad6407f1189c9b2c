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
}
