import Foundation

/// A value shared between threads in tests.
package final class LockedBox<T>: @unchecked Sendable {
    // NB: @unchecked because every access goes through the lock.
    private let lock = NSLock()
    private var stored: T

    package init(_ value: T) {
        stored = value
    }

    package var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    package func mutate(_ body: (inout T) -> Void) {
        lock.withLock { body(&stored) }
    }
}
