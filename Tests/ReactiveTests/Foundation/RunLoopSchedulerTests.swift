import Dispatch
import Foundation
import Reactive
import XCTest

// NB: XCTest, not Swift Testing: an XCTest method runs on the main thread and `wait(for:)` runs the main run loop
// there, which is what a view model test written for Apple's Combine relies on.
final class RunLoopSchedulerTests: XCTestCase {
    func testReceiveOnRunLoopMainDeliversOnTheMainThreadWhileAnExpectationWaits() {
        let subject = PassthroughSubject<Int, Never>()
        let delivered = expectation(description: "two values and the completion")
        var seen: [String] = []
        let token = subject.receive(on: RunLoop.main).sink(
            receiveCompletion: { _ in
                seen.append("finished on main: \(Thread.isMainThread)")
                delivered.fulfill()
            },
            receiveValue: { seen.append("\($0) on main: \(Thread.isMainThread)") })
        DispatchQueue.global().async {
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
        }
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(seen, ["1 on main: true", "2 on main: true", "finished on main: true"])
        token.cancel()
    }

    func testReceiveOnDispatchQueueMainDeliversOnTheMainThreadWhileAnExpectationWaits() {
        let delivered = expectation(description: "value")
        var onMain: [Bool] = []
        let token = Just(1).subscribe(on: DispatchQueue.global()).receive(on: DispatchQueue.main).sink { _ in
            onMain.append(Thread.isMainThread)
            delivered.fulfill()
        }
        wait(for: [delivered], timeout: 10)
        XCTAssertEqual(onMain, [true])
        token.cancel()
    }

    func testDelayOnRunLoopMainFiresOnTheMainThreadAfterTheInterval() {
        let delivered = expectation(description: "delayed value")
        let start = Date()
        var elapsed: TimeInterval = 0
        var onMain = false
        let token = Just(1).delay(for: .milliseconds(200), scheduler: RunLoop.main).sink { _ in
            elapsed = Date().timeIntervalSince(start)
            onMain = Thread.isMainThread
            delivered.fulfill()
        }
        wait(for: [delivered], timeout: 10)
        XCTAssertTrue(onMain)
        XCTAssertGreaterThanOrEqual(elapsed, 0.19)
        token.cancel()
    }

    func testARepeatingActionOnRunLoopMainRunsOnTheMainThreadUntilCancelled() {
        let ticked = expectation(description: "three ticks")
        ticked.expectedFulfillmentCount = 3
        var ticks: [Bool] = []
        let scheduler = RunLoop.main
        let repeating = scheduler.schedule(
            after: scheduler.now.advanced(by: .milliseconds(10)), interval: .milliseconds(20)
        ) {
            ticks.append(Thread.isMainThread)
            if ticks.count <= 3 { ticked.fulfill() }
        }
        wait(for: [ticked], timeout: 10)
        repeating.cancel()
        let count = ticks.count
        RunLoop.main.run(until: Date().addingTimeInterval(0.1))
        XCTAssertEqual(ticks.count, count, "no tick after cancel")
        XCTAssertEqual(Set(ticks), [true])
    }

    func testNothingScheduledOnRunLoopMainRunsWhileTheMainThreadIsBusy() {
        var ran = false
        RunLoop.main.schedule { ran = true }
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertFalse(ran, "work for the main run loop waits for it to run, as on Apple")
        RunLoop.main.run(until: Date().addingTimeInterval(0.05))
        XCTAssertTrue(ran)
    }
}

/// `Timer.publish` on the main run loop ticks on the main thread while an XCTest expectation waits.
final class TimerPublisherTests: XCTestCase {
    func testAnAutoconnectedTimerTicksOnTheMainThreadUntilCancelled() {
        let ticked = expectation(description: "three ticks")
        ticked.expectedFulfillmentCount = 3
        var onMain: [Bool] = []
        let token = Timer.publish(every: 0.02, on: .main, in: .common).autoconnect().sink { _ in
            onMain.append(Thread.isMainThread)
            if onMain.count <= 3 { ticked.fulfill() }
        }
        wait(for: [ticked], timeout: 10)
        token.cancel()
        let count = onMain.count
        RunLoop.main.run(until: Date().addingTimeInterval(0.1))
        XCTAssertEqual(onMain.count, count, "no tick after cancel")
        XCTAssertEqual(Set(onMain), [true])
    }

    func testThePublishMethodDropsTheToleranceAsCombinesDoes() {
        let publisher = Timer.publish(every: 0.25, tolerance: 0.02, on: .main, in: .common)
        XCTAssertEqual(publisher.interval, 0.25)
        XCTAssertNil(publisher.tolerance)
    }
}
