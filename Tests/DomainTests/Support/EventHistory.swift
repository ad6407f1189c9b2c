import Reactive
import Synchronization

/// Records every value a publisher emits, from any thread, so a test compares the whole history.
final class EventHistory<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    private let subscription = Mutex<AnyCancellable?>(nil)

    init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == Never {
        let cancellable = publisher.sink { [weak self] value in self?.values.withLock { $0.append(value) } }
        subscription.withLock { $0 = cancellable }
    }

    /// Everything received so far, in order.
    var all: [Value] {
        values.withLock { $0 }
    }

    /// Stops recording.
    func cancel() {
        subscription.withLock { $0?.cancel() }
    }
}
