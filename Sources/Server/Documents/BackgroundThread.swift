import Dispatch
import Foundation
import Storage
import Synchronization

/// A thread of its own at the lowest CPU priority (nice 19) that runs one job at a time for a caller who
/// waits for it: the encoding and hashing of a data file's rewrite, so that the rewrite of a large file
/// takes a core only when the event loops and the commits leave one idle.
///
/// NB: a thread of its own, not a dispatch queue's: a worker's nice value cannot be lowered back, and a
/// thread it started would inherit it. Its jobs take no lock that others wait on (a job holding one would
/// hold it at the lowest priority), and start no other work.
///
/// ```swift
/// let encoder = BackgroundThread(name: "livestate-datafile-encoder")
/// let bytes = encoder.run { DataFileContent.fileBytes(resources) }
/// ```
final class BackgroundThread: Sendable {
    /// The jobs and the thread's wake-up, shared with the thread (which does not hold its owner).
    private final class Jobs: Sendable {
        let queue = Mutex<[@Sendable () -> Void]>([])
        let wake = DispatchSemaphore(value: 0)
    }

    private let jobs = Jobs()

    /// Starts the thread, named `name`.
    init(name: String) {
        let jobs = self.jobs
        let thread = Thread {
            ThreadPriority.lowerCallingThread()
            while true {
                jobs.wake.wait()
                // An empty queue after a wake-up: the owner is gone.
                guard let job = jobs.queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
                job()
            }
        }
        thread.name = name
        thread.start()
    }

    deinit { jobs.wake.signal() }

    /// Runs `work` on the thread and answers its result once it is done.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.queue.withLock {
            $0.append {
                let value = work()
                result.withLock { $0 = value }
                done.signal()
            }
        }
        jobs.wake.signal()
        done.wait()
        // Invariant: the job set it before it signalled `done`.
        return result.withLock { $0 }!
    }
}
