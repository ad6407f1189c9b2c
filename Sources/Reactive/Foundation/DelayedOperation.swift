import Foundation
import Synchronization

/// What the operation queue scheduler adds for an action due later, as Combine's does: an operation of its
/// own (not a `BlockOperation`), added to the queue at once and not ready until its date; cancellable. It runs
/// its action once (running it again does nothing); a repeating schedule's operation adds the next one to
/// the queue before it runs the action.
// NB: @unchecked Sendable: its own state is Mutex-guarded; Operation's is the queue's.
final class DelayedOperation: Operation, Cancellable, @unchecked Sendable {
    private let state: Mutex<DelayedOperationState>
    /// The repeating schedule this operation is one tick of, if any.
    private let schedule: RepeatingOperations?

    init(action: @escaping () -> Void, schedule: RepeatingOperations? = nil) {
        state = Mutex(DelayedOperationState(action: action))
        self.schedule = schedule
        super.init()
    }

    /// Ready once its date has come (or once cancelled, so the queue can let go of it).
    override var isReady: Bool {
        super.isReady && (state.withLock { $0.dateReached } || isCancelled)
    }

    override func main() {
        guard let action = state.withLock({ $0.action.take() }) else { return }
        schedule?.addNext(action)
        action()
    }

    override func cancel() {
        _ = state.withLock { $0.action.take() }
        super.cancel()
    }

    /// Makes the operation ready at `date` (at once if it has passed), telling its queue.
    func becomeReady(at date: Date) {
        let delay = Swift.max(0, date.timeIntervalSinceNow)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            guard let self else { return }
            willChangeValue(forKey: "isReady")
            state.withLock { $0.dateReached = true }
            didChangeValue(forKey: "isReady")
        }
    }
}

// NB: @unchecked Sendable: it only lives inside its operation's Mutex; the action runs once, on the queue.
private struct DelayedOperationState: @unchecked Sendable {
    var action: (() -> Void)?
    var dateReached = false
}
