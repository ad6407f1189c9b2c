import HTTP
import LibEvent
import Support
import Synchronization

/// Gives memory back to the kernel after many streams (`/events` clients, live queries) ended: each client's buffers are freed when
/// it goes, but malloc keeps the pages for reuse, so RSS would stay at its peak for good. Every `interval`
/// seconds it compares the number of clients with the most seen since the last trim; when at least `drop`
/// clients (or all of them) are gone, it trims once (`Allocator.trim`, a walk of the heap: cheap at this
/// rate, and never while clients only come).
///
/// ```swift
/// let timer = MemoryReturn.start(on: loop) { hub.clientCount }
/// ```
enum MemoryReturn {
    /// Starts the check on `loop`; cancel the returned timer to stop it.
    static func start(
        on loop: EventLoop, interval: Double = 2, drop: Int = 32, clients: @escaping @Sendable () -> Int
    ) -> LoopTimer {
        let peak = Mutex(0)
        return loop.schedule(after: interval, repeating: interval) {
            let now = clients()
            let (trim, peakBefore) = peak.withLock { peak -> (Bool, Int) in
                peak = max(peak, now)
                let seen = peak
                guard peak - now >= drop || now == 0 && peak > 0 else { return (false, seen) }
                peak = now
                return (true, seen)
            }
            guard trim else { return }
            let kept = Allocator.statistics
            Allocator.trim()
            Log.debug(
                "trimmed malloc: \(now) streams after \(peakBefore); before the trim "
                    + "\(kept.inUse >> 20) MiB in use, \(kept.free >> 20) MiB free")
        }
    }
}
