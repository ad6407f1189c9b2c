import Foundation
import Reactive
import Synchronization
import Testing

/// `OperationQueue.SchedulerTimeType` is its own type (as in Combine), with the run loop's date arithmetic,
/// and the queue schedules on itself.
@Suite struct OperationQueueSchedulerTests {
    @Test func itsTimeTypeIsNotTheRunLoops() {
        #expect(OperationQueue.SchedulerTimeType.self != RunLoop.SchedulerTimeType.self)
        #expect(OperationQueue.SchedulerTimeType.Stride.self != RunLoop.SchedulerTimeType.Stride.self)
    }

    @Test func timesAdvanceByStridesOfSeconds() {
        let start = OperationQueue.SchedulerTimeType(Date(timeIntervalSince1970: 100))
        let later = start.advanced(by: .milliseconds(1_500))
        #expect(later.date == Date(timeIntervalSince1970: 101.5))
        #expect(start.distance(to: later) == .seconds(1.5))
        #expect(start.distance(to: later).timeInterval == 1.5)
        let stride: OperationQueue.SchedulerTimeType.Stride = 2
        #expect((stride * 3 - 1).magnitude == 5)
        #expect(OperationQueue.SchedulerTimeType.Stride.microseconds(250).magnitude == 0.000_25)
    }

    @Test func timeAndStrideRoundTripThroughJSON() throws {
        let time = OperationQueue.SchedulerTimeType(Date(timeIntervalSince1970: 1_000))
        let decoded = try JSONDecoder().decode(
            OperationQueue.SchedulerTimeType.self, from: try JSONEncoder().encode(time))
        #expect(decoded == time)
        let stride = OperationQueue.SchedulerTimeType.Stride.seconds(3)
        let strideBack = try JSONDecoder().decode(
            OperationQueue.SchedulerTimeType.Stride.self, from: try JSONEncoder().encode(stride))
        #expect(strideBack == stride)
    }

    @Test func aDelayOnAQueueDeliversOnThatQueueAfterTheInterval() async {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let start = Date()
        let token = Mutex<AnyCancellable?>(nil)
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<(Int, Bool), Never>) in
            let cancellable = Just(7).delay(for: .milliseconds(50), scheduler: queue).sink { value in
                continuation.resume(returning: (value, OperationQueue.current === queue))
            }
            token.withLock { $0 = cancellable }
        }
        token.withLock { $0 = nil }
        #expect(value.0 == 7)
        #expect(value.1)
        #expect(Date().timeIntervalSince(start) >= 0.05)
    }
}

/// How the scheduler hands an action to the queue, as Combine's: one `BlockOperation` through
/// `addOperation(_:)`, which a queue subclass sees (and can run again).
@Suite struct OperationQueueSchedulerOperationTests {
    @Test func anActionIsAddedAsOneBlockOperation() {
        let queue = RecordingOperationQueue()
        queue.isSuspended = true
        let runs = Mutex(0)
        queue.schedule { runs.withLock { $0 += 1 } }
        let added = queue.added.withLock { $0 }
        #expect(added.count == 1)
        #expect(added.first is BlockOperation)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        #expect(runs.withLock { $0 } == 1)
    }

    /// An action for later is added at once, as an operation of the scheduler's own that is not ready until
    /// its date; run again, it does nothing.
    @Test func anActionForLaterIsAddedAtOnceAndRunsAtItsDate() throws {
        let queue = RecordingOperationQueue()
        let runs = Mutex(0)
        let start = Date()
        queue.schedule(after: queue.now.advanced(by: .milliseconds(200))) { runs.withLock { $0 += 1 } }
        let added = queue.added.withLock { $0 }
        #expect(added.count == 1)
        let operation = try #require(added.first as? Operation)
        #expect(!(operation is BlockOperation))
        #expect(operation is any Cancellable)
        #expect(!operation.isReady && !operation.isFinished && !operation.isCancelled && !operation.isAsynchronous)
        queue.waitUntilAllOperationsAreFinished()
        #expect(runs.withLock { $0 } == 1)
        #expect(Date().timeIntervalSince(start) >= 0.15)
        operation.main()
        #expect(runs.withLock { $0 } == 1)
    }

    /// Cancelling the operation of an action for later drops the action, and the queue lets go of it at once.
    @Test func aCancelledOperationForLaterNeverRunsItsAction() throws {
        let queue = RecordingOperationQueue()
        let runs = Mutex(0)
        let start = Date()
        queue.schedule(after: queue.now.advanced(by: .seconds(5))) { runs.withLock { $0 += 1 } }
        let operation = try #require(queue.added.withLock { $0.first } as? Operation)
        operation.cancel()
        queue.waitUntilAllOperationsAreFinished()
        #expect(operation.isCancelled)
        #expect(Date().timeIntervalSince(start) < 4)
        #expect(runs.withLock { $0 } == 0)
    }

    /// A repeating action: one operation at a time, the next added before each tick runs; a cancel stops it.
    @Test func aRepeatingActionAddsOneOperationPerTickUntilCancelled() async throws {
        let queue = RecordingOperationQueue()
        let ticks = Mutex<[Int]>([])
        let token = Mutex<AnyCancellable?>(nil)
        // The first tick is a second away so that the check right after `schedule` sees the queue before any tick
        // ran, however loaded the machine (under load 29, 50 ms had passed and the next operation was added).
        let cancellable = queue.schedule(
            after: queue.now.advanced(by: .seconds(1)), interval: .milliseconds(50)
        ) { [queue] in
            let added = queue.added.withLock { $0.count }
            let count = ticks.withLock { ticks in
                ticks.append(added)
                return ticks.count
            }
            // Cancelled from inside a tick: the operation for the next tick is already in the queue.
            if count >= 3 { token.withLock { $0 }?.cancel() }
        }
        #expect(cancellable is AnyCancellable)
        token.withLock { $0 = cancellable as? AnyCancellable }
        #expect(queue.added.withLock { $0.count } == 1)
        #expect(!(queue.added.withLock { $0.first } is BlockOperation))
        let deadline = Date().addingTimeInterval(10)
        while ticks.withLock({ $0.count }) < 3, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(300))
        let seen = ticks.withLock { $0 }
        #expect(Array(seen.prefix(3)) == [2, 3, 4])
        #expect(queue.added.withLock { $0.count } == seen.count + 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(ticks.withLock { $0.count } == seen.count)
        // The cancelled operation does not stay in the queue.
        while queue.operationCount > 0, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(queue.operationCount == 0)
    }
}

/// An operation queue that records what is added to it, by either entry point.
private final class RecordingOperationQueue: OperationQueue, @unchecked Sendable {
    // NB: @unchecked Sendable: the record is Mutex-guarded.
    let added = Mutex<[Any]>([])

    override func addOperation(_ op: Operation) {
        added.withLock { $0.append(op) }
        super.addOperation(op)
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        added.withLock { $0.append("block") }
        super.addOperation(block)
    }
}
