import Synchronization

/// A caller of `whenApplied`, answered once.
final class AppliedWaiter: Sendable {
    let seq: Int64
    private let done: Mutex<(@Sendable (Bool) -> Void)?>

    init(seq: Int64, done: @escaping @Sendable (Bool) -> Void) {
        self.seq = seq
        self.done = Mutex(done)
    }

    /// Calls `done` with `applied` unless it was called before.
    func call(_ applied: Bool) {
        let done = self.done.withLock { done in
            defer { done = nil }
            return done
        }
        done?(applied)
    }
}
