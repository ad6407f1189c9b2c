import CEvent

/// The connection's one deadline: a timer event on the listener's loop that calls `timerFired`.
extension ConnectionGuard {
    /// The deadline's event, made on first use; nil once the guard is released.
    func ensureTimer() -> OpaquePointer? {
        if let timer { return timer }
        guard !released else { return nil }
        timer = event_new(
            bufferevent_get_base(bev), -1, 0,
            { _, _, context in
                guard let context else { return }
                let connectionGuard = Unmanaged<ConnectionGuard>.fromOpaque(context).takeUnretainedValue()
                withExtendedLifetime(connectionGuard) { connectionGuard.timerFired() }
            }, Unmanaged.passUnretained(self).toOpaque())
        return timer
    }

    /// Starts (or restarts) the deadline, `seconds` from now.
    func arm(after seconds: Double) {
        guard let timer = ensureTimer() else { return }
        var delay = LoopTimer.timeval(seconds: seconds)
        event_add(timer, &delay)
        deadlineArmed = true
    }

    /// Cancels the deadline.
    func disarm() {
        if let timer { event_del(timer) }
        deadlineArmed = false
    }
}
