import Reactive
import Testing

@Suite struct MapTests {
    @Test func transformsEveryValueAndPassesCompletion() {
        let tracker = [1, 2, 3].publisher.map { $0 * 10 }.track()
        #expect(tracker.events == [.subscription, .value(10), .value(20), .value(30), .finished])
    }

    @Test func keyPathForm() {
        struct Output { let data: String }
        #expect(Just(Output(data: "bytes")).map(\.data).track().values == ["bytes"])
    }

    @Test func honoursDemandOfOne() {
        let tracker = [1, 2, 3].publisher.map { $0 + 1 }.track(initialDemand: .max(1))
        #expect(tracker.events == [.subscription, .value(2)])
        tracker.request(.max(1))
        #expect(tracker.values == [2, 3])
    }

    @Test func failurePassesThrough() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.map { $0 }.track()
        subject.send(completion: .failure(TestError(code: 2)))
        #expect(tracker.events == [.subscription, .failure("TestError(2)")])
    }
}
