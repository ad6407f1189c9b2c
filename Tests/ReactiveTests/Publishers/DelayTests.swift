import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct DelayTests {
    @Test func shiftsEveryEventByTheInterval() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.delay(for: .seconds(2), scheduler: scheduler).track()
        subject.send(1)
        scheduler.advance(by: .seconds(1))
        subject.send(2)
        subject.send(completion: .finished)
        scheduler.advance(by: .seconds(1))
        #expect(tracker.values == [1])
        scheduler.advance(by: .seconds(1))
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }
}
