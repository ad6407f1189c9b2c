import Reactive
import Testing

@Suite struct MergeTests {
    @Test func interleavesInArrivalOrderAndFinishesWhenAllFinish() {
        let a = PassthroughSubject<Int, Never>()
        let b = PassthroughSubject<Int, Never>()
        let tracker = a.merge(with: b).track()
        a.send(1)
        b.send(2)
        a.send(3)
        a.send(completion: .finished)
        b.send(4)
        #expect(tracker.events == [.subscription, .value(1), .value(2), .value(3), .value(4)])
        b.send(completion: .finished)
        #expect(tracker.events.last == .finished)
    }

    @Test func mergeManyAndAFailureEndsEverything() {
        let subjects = (0..<3).map { _ in PassthroughSubject<Int, TestError>() }
        let tracker = Publishers.MergeMany(subjects).track()
        subjects[2].send(7)
        subjects[0].send(completion: .failure(TestError()))
        subjects[1].send(8)
        #expect(tracker.events == [.subscription, .value(7), .failure("TestError(1)")])
    }

    @Test func honoursDemand() {
        let tracker = [1, 2].publisher.merge(with: [3, 4].publisher).track(initialDemand: .max(3))
        #expect(tracker.values.count == 3)
    }
}
