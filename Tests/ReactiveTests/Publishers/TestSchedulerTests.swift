import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct TestSchedulerTests {
    @Test func runsActionsInTimeOrderAndTiesInSchedulingOrder() {
        let scheduler = DispatchQueue.test
        var log: [String] = []
        let start = scheduler.now
        scheduler.schedule(after: start.advanced(by: .seconds(2))) { log.append("b") }
        scheduler.schedule(after: start.advanced(by: .seconds(1))) { log.append("a1") }
        scheduler.schedule(after: start.advanced(by: .seconds(1))) { log.append("a2") }
        scheduler.advance(by: .seconds(1))
        #expect(log == ["a1", "a2"])
        #expect(scheduler.now == start.advanced(by: .seconds(1)))
        scheduler.run()
        #expect(log == ["a1", "a2", "b"])
    }

    @Test func repeatingActionsUntilCancelled() {
        let scheduler = DispatchQueue.test
        var ticks = 0
        let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { ticks += 1 }
        scheduler.advance(by: .seconds(3))
        #expect(ticks == 4)
        timer.cancel()
        scheduler.advance(by: .seconds(3))
        #expect(ticks == 4)
    }
}
