import Dispatch
import Foundation
import Support
import Synchronization

/// A thread of its own that runs jobs one at a time, in the order they were handed over: the journal's
/// commits with their disk flushes (`submit`: an event loop hands a commit over and gets its answer back
/// later, so no loop waits for a disk), or the encoding and hashing of a data file's rewrite at the lowest
/// CPU priority (`run`: the caller waits), so that it takes a core only when the loops and the commits leave
/// one idle.
///
/// NB: a thread of its own, not a dispatch queue's: its name shows where a disk flush runs (`strace -f`,
/// `/proc/PID/task/TID/comm`), and a worker's nice value cannot be lowered back (a thread it started would
/// inherit it). Jobs of a low-priority thread take no lock that others wait on (a job holding one would hold
/// it at the lowest priority), and start no other work.
///
/// ```swift
/// let commits = BackgroundThread(name: "livestate-write", priority: .normal)
/// commits.submit { let seqs = try? journal.commit(writes); respond(seqs) }
/// let encoder = BackgroundThread(name: "livestate-datafile-encoder")
/// let bytes = encoder.run { DataFileContent.fileBytes(resources) }
/// ```
package final class BackgroundThread: Sendable {
    /// The CPU priority of the thread.
    package enum Priority: Sendable {
        /// As every other thread of the process.
        case normal
        /// nice 19: runs when the other threads leave a core idle.
        case lowest
    }

    /// The jobs and the thread's wake-up, shared with the thread (which does not hold its owner).
    private final class Jobs: Sendable {
        let queue = Mutex<[@Sendable () -> Void]>([])
        let wake = DispatchSemaphore(value: 0)
    }

    private let jobs = Jobs()

    /// Starts the thread, named `name` (the kernel shows its first 15 bytes: `ThreadName`).
    package init(name: String, priority: Priority = .lowest) {
        let jobs = self.jobs
        let thread = Thread {
            ThreadName.setCurrent(name)
            if priority == .lowest { ThreadPriority.lowerCallingThread() }
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

    /// Runs `work` on the thread after the jobs before it, and returns at once.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        jobs.queue.withLock { $0.append(work) }
        jobs.wake.signal()
    }

    /// Runs `work` on the thread and answers its result once it is done.
    package func run<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        // Invariant: the job set it before it signalled `done`.
        return result.withLock { $0 }!
    }
}
