import Dispatch
import Reactive
import ReactiveTesting
import Testing

@Suite struct MeasureIntervalTests {
    @Test func emitsTheTimeSinceThePreviousElement() {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        var intervals: [Int] = []
        let token = subject.measureInterval(using: scheduler).sink { intervals.append($0.magnitude / 1_000_000) }
        scheduler.advance(by: .milliseconds(300))
        subject.send(1)
        scheduler.advance(by: .milliseconds(50))
        subject.send(2)
        #expect(intervals == [300, 50])
        token.cancel()
    }
}
