import Foundation
import Reactive
import TestSupport
import Testing

@testable import HTTP
@testable import LibEvent

/// The loop's thread, cross-thread hand-over, timers, and its `Scheduler` conformance.
@Suite struct EventLoopTests {
    private func runningLoop() throws -> EventLoop {
        let loop = try EventLoop(name: "test-loop")
        loop.run()
        return loop
    }

    /// Waits until a timer of `seconds` fired on `loop` (so earlier timers had their chance).
    private func waitOnLoop(_ loop: EventLoop, _ seconds: Double) -> Bool {
        let fired = LockedBox(false)
        loop.schedule(after: seconds) { fired.value = true }
        return eventually { fired.value }
    }

    @Test func workFromOtherThreadsRunsOnTheLoopInSubmissionOrder() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let seen = LockedBox<[Int: [Int]]>([:])
        let offLoop = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<500 {
                loop.execute {
                    if !loop.inLoop { offLoop.mutate { $0 += 1 } }
                    seen.mutate { $0[thread, default: []].append(index) }
                }
            }
        }
        #expect(eventually { seen.value.values.reduce(0) { $0 + $1.count } == 2000 })
        #expect(offLoop.value == 0)
        for thread in 0..<4 { #expect(seen.value[thread] == Array(0..<500)) }
        #expect(!loop.inLoop)
    }

    @Test func timersFireAfterTheirDelay() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let start = Date()
        let fired = LockedBox<Date?>(nil)
        loop.schedule(after: 0.1) { fired.value = Date() }
        #expect(eventually { fired.value != nil })
        #expect(fired.value!.timeIntervalSince(start) >= 0.09)
    }

    @Test func cancelledTimersNeverFire() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let cancelledFired = LockedBox(false)
        let laterFired = LockedBox(false)
        let timer = loop.schedule(after: 0.05) { cancelledFired.value = true }
        timer.cancel()
        loop.schedule(after: 0.15) { laterFired.value = true }
        #expect(eventually { laterFired.value })
        #expect(!cancelledFired.value)
    }

    @Test func repeatingTimersRepeatUntilCancelled() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let count = LockedBox(0)
        let timer = loop.schedule(after: 0.01, repeating: 0.01) { count.mutate { $0 += 1 } }
        #expect(eventually { count.value >= 3 })
        timer.cancel()
        try #require(waitOnLoop(loop, 0.05))
        let after = count.value
        try #require(waitOnLoop(loop, 0.05))
        #expect(count.value == after)
    }

    @Test func receiveOnDeliversOnTheLoopThread() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox<[(Int, Bool)]>([])
        let cancellable = subject.receive(on: loop).sink { value in
            received.mutate { $0.append((value, loop.inLoop)) }
        }
        subject.send(1)
        subject.send(2)
        #expect(eventually { received.value.count == 2 })
        #expect(received.value.map(\.0) == [1, 2])
        #expect(received.value.allSatisfy { $0.1 })
        cancellable.cancel()
    }

    @Test func debounceOnTheLoopEmitsOnlyTheLastOfABurst() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let subject = PassthroughSubject<Int, Never>()
        let received = LockedBox<[Int]>([])
        let cancellable = subject.debounce(for: .milliseconds(100), scheduler: loop).sink { value in
            received.mutate { $0.append(value) }
        }
        for value in 1...10 { subject.send(value) }
        #expect(eventually { !received.value.isEmpty })
        try #require(waitOnLoop(loop, 0.2))
        #expect(received.value == [10])
        cancellable.cancel()
    }

    @Test func scheduledRepeatingWorkIsCancellable() throws {
        let loop = try runningLoop()
        defer { loop.stop() }
        let count = LockedBox(0)
        let cancellable = loop.schedule(after: loop.now, interval: .milliseconds(10)) { count.mutate { $0 += 1 } }
        #expect(eventually { count.value >= 2 })
        cancellable.cancel()
        try #require(waitOnLoop(loop, 0.05))
        let after = count.value
        try #require(waitOnLoop(loop, 0.05))
        #expect(count.value == after)
    }
}
