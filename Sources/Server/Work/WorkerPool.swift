import Dispatch
import Foundation
import HTTP
import Support
import Synchronization

/// A fixed number of threads for CPU-heavy work (generating a placeholder image), so an event loop hands the
/// work over and goes on serving. The queue is bounded: when it is full a job is refused at once (the route
/// answers 503) instead of the queue, and the memory of the requests waiting in it, growing with traffic.
///
/// ```swift
/// let pool = WorkerPool(threads: 2, capacity: 32)
/// return .later { respond in
///     pool.reply(respond) { Response(status: 200, body: heavy()) }   // 503 busy when the queue is full
/// }
/// ```
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct State {
        var jobs: [Job] = []
        var isStopped = false
        var isStarted = false
    }

    /// The threads.
    let threads: Int
    /// The most jobs waiting (not counting the ones running).
    let capacity: Int

    private let state = Mutex(State())
    /// One signal per queued job, and one per thread at `stop()`.
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()

    private let name: String

    /// A pool of `threads` threads named `name`, started with the first job (an app that never needs one
    /// starts none).
    init(threads: Int = 2, capacity: Int = 32, name: String = "livestate-worker") {
        self.threads = threads
        self.capacity = capacity
        self.name = name
    }

    private func startThreads() {
        for index in 0..<threads {
            let thread = Thread { [self] in
                ThreadName.setCurrent("\(name)-\(index)")
                work()
                finished.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Queues `job`; false when the queue is full or the pool stopped (the job will not run).
    func submit(_ job: @escaping Job) -> Bool {
        let (accepted, start) = state.withLock { state -> (Bool, Bool) in
            guard !state.isStopped, state.jobs.count < capacity else { return (false, false) }
            state.jobs.append(job)
            guard !state.isStarted else { return (true, false) }
            // NB: entered under the lock, so a `stop()` that sees the pool started waits for every thread.
            state.isStarted = true
            for _ in 0..<threads { finished.enter() }
            return (true, true)
        }
        if start { startThreads() }
        if accepted { ready.signal() }
        return accepted
    }

    /// Runs `make` on a worker and sends its response through `respond` (which hands it to the loop that
    /// owns the request); a full queue answers `503 busy` with `Retry-After: 1` at once.
    func reply(_ respond: @escaping Reply.Respond, _ make: @escaping @Sendable () -> Response) {
        guard submit({ respond(make()) }) else {
            respond(
                Response(error: HTTPError(503, "busy", "The server is busy; try again.", headers: ["Retry-After": "1"]))
            )
            return
        }
    }

    /// Number of jobs waiting now.
    var queued: Int { state.withLock { $0.jobs.count } }

    /// Refuses new jobs, lets the threads finish the queued ones, and waits for them to end.
    func stop() {
        let (wasStopped, started) = state.withLock { state in
            defer { state.isStopped = true }
            return (state.isStopped, state.isStarted)
        }
        guard !wasStopped, started else { return }
        for _ in 0..<threads { ready.signal() }
        finished.wait()
    }

    private func work() {
        while true {
            ready.wait()
            let job = state.withLock { state -> Job?? in
                if !state.jobs.isEmpty { return .some(state.jobs.removeFirst()) }
                return state.isStopped ? .none : .some(nil)
            }
            guard let job else { return }
            job?()
        }
    }
}
