import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct ThrottleTests {
    @Test(arguments: [(true, [1, 4]), (false, [1, 2])])
    func firstGoesAtOnceThenOnePerInterval(latest: Bool, expected: [Int]) {
        let scheduler = DispatchQueue.test
        let subject = PassthroughSubject<Int, Never>()
        let tracker = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: latest).track()
        subject.send(1)
        scheduler.advance()
        #expect(tracker.values == [1])
        scheduler.advance(by: .milliseconds(100))
        subject.send(2)
        subject.send(3)
        subject.send(4)
        scheduler.advance(by: .milliseconds(900))
        #expect(tracker.values == expected)
        scheduler.advance(by: .seconds(5))
        #expect(tracker.values == expected)
    }

    @Test(arguments: [true, false])
    func theWindowRunsFromTheLastEmissionNotFromAValuesArrival(latest: Bool) {
        let scheduler = DispatchQueue.test
        let start = scheduler.now
        let subject = PassthroughSubject<Int, Never>()
        var emitted: [String] = []
        let token = subject.throttle(for: .seconds(60), scheduler: scheduler, latest: latest).sink { value in
            emitted.append("\(value)@\(start.distance(to: scheduler.now).magnitude / 1_000_000_000)")
        }
        subject.send(0)
        scheduler.advance(by: .seconds(45))
        subject.send(45)
        scheduler.advance(by: .seconds(55))
        subject.send(100)
        scheduler.advance(by: .seconds(200))
        #expect(emitted == ["0@0", "45@60", "100@120"])
        token.cancel()
    }
}
