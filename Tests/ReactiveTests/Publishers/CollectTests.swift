import Reactive
import Testing

@Suite struct CollectTests {
    @Test func collectAll() {
        #expect((0..<3).publisher.collect().track().values == [[0, 1, 2]])
    }

    @Test func collectByCountEmitsFullBuffersThenTheRest() {
        #expect((0..<5).publisher.collect(2).track().values == [[0, 1], [2, 3], [4]])
    }

    @Test func collectByCountHonoursDemandInBuffers() {
        let tracker = (0..<10).publisher.collect(3).track(initialDemand: .max(1))
        #expect(tracker.values == [[0, 1, 2]])
        tracker.request(.max(1))
        #expect(tracker.values == [[0, 1, 2], [3, 4, 5]])
    }
}

/// `collect(_:)` as Combine's: it keeps no terminal state, so a completion after a completion or a cancel
/// still goes downstream, and a request of zero traps.
@Suite struct CollectByCountMisuseTests {
    @Test func everyCompletionGoesDownstream() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.collect(2).track()
        upstream.subscribe()
        tracker.cancel()
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(tracker.events == [.subscription, .finished, .finished])
    }

    @Test func aCancelDropsThePartialGroupButNotTheFinish() {
        let upstream = ManualPublisher<Int, Never>()
        let tracker = upstream.collect(3).track()
        upstream.subscribe()
        upstream.send(1)
        tracker.cancel()
        upstream.send(completion: .finished)
        #expect(tracker.events == [.subscription, .finished])
    }

    @Test func aRequestOfZeroTraps() async {
        await #expect(processExitsWith: .failure) {
            let upstream = ManualPublisher<Int, Never>()
            let tracker = upstream.collect(2).track(initialDemand: .none)
            upstream.subscribe()
            tracker.request(.none)
        }
    }
}
