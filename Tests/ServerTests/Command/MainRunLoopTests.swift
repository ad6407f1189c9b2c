import Foundation
import Reactive
import XCTest

@testable import Server

/// The server's main thread runs the main run loop while it serves, so work a view model sends to `RunLoop.main`
/// or `DispatchQueue.main` (the seeds' `.receive(on: RunLoop.main)`) runs there, on the main thread.
// NB: XCTest, not Swift Testing: the command must be run on the main thread, as the executable runs it.
final class MainRunLoopTests: XCTestCase {
    func testWorkForTheMainRunLoopRunsOnTheMainThreadWhileTheServerServes() {
        var seen: [String] = []
        let subject = PassthroughSubject<String, Never>()
        let token = subject.receive(on: RunLoop.main).sink { value in
            seen.append("\(value) on main: \(Thread.isMainThread)")
            if value == "dispatch" {
                // Ends the serve loop the way an operator does.
                kill(getpid(), SIGTERM)
            }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            subject.send("run loop")
            DispatchQueue.main.async { subject.send("dispatch") }
        }
        // If the main thread never runs that work, stop anyway so the test fails instead of hanging.
        let fallback = DispatchWorkItem { kill(getpid(), SIGTERM) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 15, execute: fallback)
        let status = LiveStateCommand.main(
            arguments: ["livestate", "--port", "0", "--data", ":memory:"], environment: [:])
        fallback.cancel()
        XCTAssertEqual(status, 0)
        XCTAssertEqual(seen, ["run loop on main: true", "dispatch on main: true"])
        token.cancel()
    }
}
