import Foundation
import Synchronization

/// A repeating schedule on an operation queue: one `DelayedOperation` in the queue at a time, each due one
/// interval after the one before; cancelling it cancels the operation waiting and adds no more.
// NB: @unchecked Sendable: its state is Mutex-guarded.
final class RepeatingOperations: Cancellable, @unchecked Sendable {
    private let queue: OperationQueue
    private let interval: TimeInterval
    private let state: Mutex<RepeatingState>

    init(queue: OperationQueue, first date: Date, interval: TimeInterval) {
        self.queue = queue
        self.interval = interval
        state = Mutex(RepeatingState(due: date.addingTimeInterval(-interval)))
    }

    /// Adds the operation for the next date (the first one when called first).
    func addNext(_ action: @escaping () -> Void) {
        let operation = DelayedOperation(action: action, schedule: self)
        let due = state.withLock { state -> Date? in
            guard !state.cancelled else { return nil }
            state.due = state.due.addingTimeInterval(interval)
            state.current = operation
            return state.due
        }
        guard let due else { return }
        queue.addOperation(operation)
        operation.becomeReady(at: due)
    }

    func cancel() {
        state.withLock { state -> DelayedOperation? in
            state.cancelled = true
            defer { state.current = nil }
            return state.current
        }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its schedule's Mutex.
private struct RepeatingState: @unchecked Sendable {
    /// The date of the operation last added.
    var due: Date
    var current: DelayedOperation?
    var cancelled = false
}
