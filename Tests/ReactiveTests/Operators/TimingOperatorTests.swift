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
}

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
}

@Suite struct SubscribeOnTests {
    @Test func subscribesAndRequestsOnTheScheduler() {
        let scheduler = DispatchQueue.test
        let tracker = [1, 2].publisher.subscribe(on: scheduler).track()
        #expect(tracker.events == [])
        scheduler.advance()
        #expect(tracker.events == [.subscription, .value(1), .value(2), .finished])
    }
}

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
