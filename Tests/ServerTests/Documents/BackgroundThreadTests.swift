import Foundation
import Testing

@testable import Server

/// `BackgroundThread`: jobs run one at a time on a thread of their own, at nice 19, and answer their result.
@Suite struct BackgroundThreadTests {
    @Test func answersEachJobsResultInTurn() {
        let thread = BackgroundThread(name: "test-background")
        #expect((1...5).map { number in thread.run { number * number } } == [1, 4, 9, 16, 25])
    }

    @Test func runsItsJobsAtTheLowestPriorityAndLeavesTheCallerAsItWas() throws {
        let thread = BackgroundThread(name: "test-background")
        #expect(thread.run { Self.niceOfCallingThread() } == "19")
        #expect(Self.niceOfCallingThread() != "19")
    }

    /// The 19th field of `/proc/thread-self/stat` (the 17th after the name's closing parenthesis).
    private static func niceOfCallingThread() -> String? {
        let stat = (try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        return fields.count > 16 ? String(fields[16]) : nil
    }
}
