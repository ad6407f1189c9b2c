import Reactive
import Testing

@Suite struct MapErrorAndSetFailureTypeTests {
    @Test func mapErrorConvertsTheFailure() {
        let tracker = Fail<Int, TestError>(error: TestError(code: 4)).mapError { TestError(code: $0.code * 10) }.track()
        #expect(tracker.events == [.subscription, .failure("TestError(40)")])
    }

    @Test func setFailureTypeOnlyChangesTheType() {
        let tracker: TrackingSubscriber<Int, TestError> = Just(1).setFailureType(to: TestError.self).track()
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }
}
