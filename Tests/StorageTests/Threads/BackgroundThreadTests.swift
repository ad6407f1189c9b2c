import Dispatch
import Foundation
import Storage
import Synchronization
import Testing

/// `BackgroundThread`: jobs run one at a time, in order, on a thread of their own that the kernel knows by
/// its name, at nice 19 unless asked otherwise, and answer their result.
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

    @Test func submittedJobsRunInOrderOnTheNamedThreadWithoutTheCallerWaiting() {
        let thread = BackgroundThread(name: "livestate-write-test", priority: .normal)
        let seen = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        for number in 1...5 {
            thread.submit {
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                seen.withLock { $0.append("\(number) \(name.trimmingCharacters(in: .newlines))") }
                if number == 5 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        // The kernel keeps a name's first 15 bytes.
        #expect(seen.withLock { $0 } == (1...5).map { "\($0) livestate-write" })
        #expect(thread.run { Self.niceOfCallingThread() } != "19")
    }

    /// The 19th field of `/proc/thread-self/stat` (the 17th after the name's closing parenthesis).
    private static func niceOfCallingThread() -> String? {
        let stat = (try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)) ?? ""
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        return fields.count > 16 ? String(fields[16]) : nil
    }
}
