import Foundation
import Reactive
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct SequenceAndRecordTests {
    @Test func sequenceHonoursDemand() {
        let tracker = (1...5).publisher.track(initialDemand: .max(2))
        #expect(tracker.values == [1, 2])
        tracker.request(.unlimited)
        #expect(tracker.events.last == .finished)
        #expect(tracker.values == [1, 2, 3, 4, 5])
    }

    @Test func sequenceStopsWhenCancelledMidStream() {
        var tracker: TrackingSubscriber<Int, Never>?
        tracker = TrackingSubscriber(onValue: { value in if value == 3 { tracker?.cancel() } })
        (1...100).publisher.subscribe(tracker!)
        #expect(tracker?.events == [.subscription, .value(1), .value(2), .value(3)])
    }

    @Test func recordPlaysBack() {
        let record = Record<Int, TestError> { recording in
            recording.receive(1)
            recording.receive(2)
            recording.receive(completion: .failure(TestError()))
        }
        #expect(record.track().events == [.subscription, .value(1), .value(2), .failure("TestError(1)")])
    }
}
