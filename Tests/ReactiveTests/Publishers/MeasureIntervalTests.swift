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

/// Combine's bookkeeping in `measureInterval`, as OpenCombine's suite (run against Combine) records it.
@Suite struct MeasureIntervalCombineBookkeepingTests {
    @Test func aValueBeforeTheSubscriptionIsDropped() {
        let upstream = ManualPublisher<Int, Never>()
        let intervals = upstream.measureInterval(using: DispatchQueue.test).map(\.magnitude).track()
        #expect(upstream.send(1) == .none)
        #expect(intervals.events == [])
    }

    @Test func theDemandForAnIntervalIsRequestedAndRequestsPassStraightUpstream() {
        let upstream = ManualPublisher<Int, Never>()
        let intervals = upstream.measureInterval(using: DispatchQueue.test).map(\.magnitude)
            .track(initialDemand: .none, demandPerValue: .max(1))
        upstream.subscribe()
        #expect(upstream.send(1) == .none)
        intervals.request(.max(2))
        #expect(intervals.values == [0])
        #expect(upstream.subscription.calls == [.requested(.max(1)), .requested(.max(2))])
    }
}
