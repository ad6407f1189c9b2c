import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct JustFailEmptyTests {
    @Test func justWaitsForDemand() {
        let tracker = Just(42).track(initialDemand: .none)
        #expect(tracker.events == [.subscription])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(42), .finished])
    }

    @Test func failAndEmpty() {
        #expect(Fail<Int, TestError>(error: TestError()).track().events == [.subscription, .failure("TestError(1)")])
        #expect(Empty<Int, Never>().track().events == [.subscription, .finished])
        #expect(Empty<Int, Never>(completeImmediately: false).track().events == [.subscription])
    }
}
