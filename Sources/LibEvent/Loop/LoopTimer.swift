import CEvent
import Glibc
import Synchronization

/// A one-shot or repeating libevent timer on an `EventLoop`; `cancel()` from any thread.
package final class LoopTimer: @unchecked Sendable {
    // NB: @unchecked because `event` is touched only on the loop's thread (arming and cancelling hop there).

    /// The loop the timer fires on.
    package let loop: EventLoop
    private let interval: Double?
    private let action: @Sendable () -> Void
    private var event: OpaquePointer?
    private let cancelled = Atomic<Bool>(false)

    init(loop: EventLoop, interval: Double?, action: @escaping @Sendable () -> Void) {
        self.loop = loop
        self.interval = interval
        self.action = action
    }

    deinit {
        if let event { event_free(event) }
    }

    /// Whether `cancel()` was called.
    package var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops the timer; once this ran on the loop's thread, the action never runs again.
    package func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loop.executeNowOrLater { [self] in
            guard let event, event_pending(event, Int16(EV_TIMEOUT), nil) != 0 else { return }
            event_del(event)
            // Balance the retain that the pending timer held (see arm).
            Unmanaged.passUnretained(self).release()
        }
    }

    func arm(after delay: Double) {
        loop.executeNowOrLater { [self] in
            guard !isCancelled else { return }
            // NB: a pending timer keeps the object alive; the retain is dropped when it stops for good.
            let event = event_new(
                loop.base, -1, 0,
                { _, _, context in
                    Unmanaged<LoopTimer>.fromOpaque(context!).takeUnretainedValue().fire()
                }, Unmanaged.passRetained(self).toOpaque())
            self.event = event
            var tv = Self.timeval(seconds: delay)
            event_add(event, &tv)
        }
    }

    private func fire() {
        guard !isCancelled else {
            Unmanaged.passUnretained(self).release()
            return
        }
        if let interval {
            // Re-arm before running, so the action may cancel the timer.
            var tv = Self.timeval(seconds: interval)
            event_add(event, &tv)
            action()
        } else {
            action()
            Unmanaged.passUnretained(self).release()
        }
    }

    /// `seconds` as a `struct timeval` (negative delays count as zero).
    static func timeval(seconds: Double) -> Glibc.timeval {
        let clamped = max(0, seconds)
        let whole = clamped.rounded(.down)
        return Glibc.timeval(tv_sec: Int(whole), tv_usec: Int((clamped - whole) * 1_000_000))
    }
}
