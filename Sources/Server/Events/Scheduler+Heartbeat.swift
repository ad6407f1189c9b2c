import Reactive

extension Scheduler {
    /// Runs `beat` every `seconds` on this scheduler, the first time `seconds` from now; nil (and nothing
    /// scheduled) when `seconds` is nil or not positive. The streams' `: keep-alive` comments.
    func heartbeat(every seconds: Double?, _ beat: @escaping () -> Void) -> (any Cancellable)? {
        guard let seconds, seconds > 0 else { return nil }
        return schedule(after: now.advanced(by: .seconds(seconds)), interval: .seconds(seconds), beat)
    }
}
