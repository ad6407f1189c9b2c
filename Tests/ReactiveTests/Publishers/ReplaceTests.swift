import Reactive
import Testing

@Suite struct ReplaceTests {
    @Test func replaceNil() {
        #expect([1, nil, 3].publisher.replaceNil(with: 0).track().values == [1, 0, 3])
    }

    @Test func replaceEmptyOnlyWhenNothingCame() {
        #expect(Empty<Int, Never>().replaceEmpty(with: 7).track().events == [.subscription, .value(7), .finished])
        #expect([1].publisher.replaceEmpty(with: 7).track().values == [1])
    }

    @Test func replaceErrorSendsTheElementThenFinishes() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.replaceError(with: -1).track()
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(1), .value(-1), .finished])
    }

    @Test func replaceErrorWaitsForDemand() {
        let subject = PassthroughSubject<Int, TestError>()
        let tracker = subject.replaceError(with: -1).track(initialDemand: .max(1))
        subject.send(1)
        subject.send(completion: .failure(TestError()))
        #expect(tracker.events == [.subscription, .value(1)])
        tracker.request(.max(1))
        #expect(tracker.events == [.subscription, .value(1), .value(-1), .finished])
    }
}
