import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct TimeoutTests {
    @Test func finishesAfterASilentInterval() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.timeout(.seconds(1), scheduler: scheduler).track()
        scheduler.advance(by: .milliseconds(900))
        subject.send(1)
        scheduler.advance(by: .milliseconds(900))
        #expect(tracker.events == [.subscription, .value(1)])
        scheduler.advance(by: .milliseconds(100))
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }

    @Test func customErrorFails() {
        let scheduler = DispatchQueue.test
        let tracker = PassthroughSubject<Int, TestError>()
            .timeout(.seconds(1), scheduler: scheduler, customError: { TestError(code: 408) })
            .track()
        scheduler.advance(by: .seconds(1))
        #expect(tracker.events == [.subscription, .failure("TestError(408)")])
    }

    @Test func valuesAndTheCompletionArriveThroughTheScheduler() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.timeout(.seconds(5), scheduler: scheduler).track()
        subject.send(1)
        subject.send(completion: .finished)
        #expect(tracker.events == [.subscription])
        scheduler.advance()
        #expect(tracker.events == [.subscription, .value(1), .finished])
    }
}
