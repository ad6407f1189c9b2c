import Reactive
import Testing

@Suite struct OutputTests {
    @Test(arguments: [(0, ["a"]), (2, ["c"]), (5, [])])
    func outputAt(index: Int, expected: [String]) {
        let tracker = ["a", "b", "c"].publisher.output(at: index).track()
        #expect(tracker.values == expected)
        #expect(tracker.events.last == .finished)
    }

    @Test func outputInRange() {
        #expect((0..<10).publisher.output(in: 2...4).track().values == [2, 3, 4])
    }

    @Test func anElementBeforeTheRangeAsksForOneInItsPlaceAndTheLastOneEndsTheStream() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.output(in: 1..<3).track(initialDemand: .max(1), demandPerValue: .max(1))
        upstream.subscribe()
        #expect(upstream.send(10) == .max(1))
        #expect(upstream.send(11) == .max(1))
        #expect(upstream.send(12) == .max(1))
        #expect(upstream.send(13) == .none)
        #expect(tracker.events == [.subscription, .value(11), .value(12), .finished])
        #expect(upstream.subscription.calls == [.requested(.max(1)), .cancelled])
    }

    @Test func valuesAreCountedAndPassedEvenAfterTheUpstreamCompleted() {
        let upstream = ManualPublisher<Int, TestError>()
        let tracker = upstream.output(in: 1..<3).track()
        upstream.subscribe()
        upstream.send(completion: .failure(TestError()))
        upstream.send(completion: .finished)
        upstream.send(10)
        upstream.send(11)
        upstream.send(12)
        upstream.send(13)
        #expect(tracker.events == [.subscription, .failure("TestError(1)"), .value(11), .value(12)])
        #expect(upstream.subscription.calls == [.requested(.unlimited)])
    }
}
