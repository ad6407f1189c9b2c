import Reactive
import Testing

@Suite struct ResultAndOptionalPublisherTests {
    @Test func aSuccessIsDeliveredOnDemandThenFinishes() {
        let tracker = Result<Int, TestError>.success(3).publisher.track(initialDemand: .none)
        #expect(tracker.events == [.subscription])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(3), .finished])
    }

    @Test func aFailureArrivesWithoutDemand() {
        let tracker = Result<Int, TestError>.failure(TestError(code: 4)).publisher.track(initialDemand: .none)
        #expect(tracker.events == [.subscription, .failure("TestError(4)")])
    }

    @Test func anOptionalPublishesItsValueOrJustFinishes() {
        #expect(Optional(5).publisher.track().events == [.subscription, .value(5), .finished])
        #expect(Int?.none.publisher.track().events == [.subscription, .finished])
    }
}
