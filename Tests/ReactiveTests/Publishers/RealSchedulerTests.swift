import Dispatch
import Foundation
import Reactive
import ReactiveTesting
import Testing

@Suite struct RealSchedulerTests {
    @Test func dispatchQueueDeliversOnTheQueue() {
        let queue = DispatchQueue(label: "reactive.test")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let seen = Locked<[Int?]>([])
        let token = [1, 2].publisher.receive(on: queue).sink { _ in
            seen.mutate { $0.append(DispatchQueue.getSpecific(key: key)) }
        }
        #expect(waitUntil { seen.value.count == 2 })
        #expect(seen.value == [7, 7])
        token.cancel()
    }

    @Test func dispatchQueueDebounceInRealTime() {
        let subject = PassthroughSubject<Int, Never>()
        let seen = Locked<[Int]>([])
        let token = subject.debounce(for: .milliseconds(50), scheduler: DispatchQueue.global()).sink { value in
            seen.mutate { $0.append(value) }
        }
        subject.send(1)
        subject.send(2)
        #expect(waitUntil { !seen.value.isEmpty })
        #expect(seen.value == [2])
        token.cancel()
    }

    @Test func immediateSchedulerRunsAtOnce() {
        var ran = false
        ImmediateScheduler.shared.schedule { ran = true }
        #expect(ran)
        #expect([1].publisher.receive(on: ImmediateScheduler.shared).track().values == [1])
    }

    @Test func strideLiterals() {
        #expect(DispatchQueue.SchedulerTimeType.Stride.seconds(0.5).magnitude == 500_000_000)
        #expect(DispatchQueue.SchedulerTimeType.Stride(floatLiteral: 1.5) == .milliseconds(1_500))
        #expect(RunLoop.SchedulerTimeType.Stride.milliseconds(250).timeInterval == 0.25)
    }
}

/// Time on the immediate scheduler, as OpenCombine's suite (run against Combine) records it.
@Suite struct ImmediateSchedulerTimeTests {
    @Test func timeNeverMovesAndEveryIntervalIsZero() {
        let now = ImmediateScheduler.shared.now
        #expect(now.advanced(by: 100) == now)
        #expect(now.distance(to: now.advanced(by: -1)) == 0)
        #expect(ImmediateScheduler.SchedulerTimeType.Stride.seconds(1100) == 0)
        #expect(ImmediateScheduler.SchedulerTimeType.Stride.milliseconds(123) == 0)
        #expect(ImmediateScheduler.SchedulerTimeType.Stride(10) * 3 == 30)
    }

    @Test func aRepeatingActionRunsOnceAndGivesTheEmptySubscription() {
        var runs = 0
        let cancellable = ImmediateScheduler.shared.schedule(after: ImmediateScheduler.shared.now, interval: 10) {
            runs += 1
        }
        #expect(runs == 1)
        #expect(String(describing: cancellable) == "Empty")
    }
}
