import Foundation
import Synchronization

/// Hands out event ids that grow across all topics and never repeat across restarts.
///
/// An id is the wall clock in microseconds, or the previous id plus one when the clock has not moved
/// on (or went back): strictly increasing within a run, and a restarted server starts above every id
/// the previous run gave, unless that run handed out more than a million ids a second.
///
/// ```swift
/// let ids = EventIDSource()
/// let a = ids.next(), b = ids.next()  // b > a
/// ```
final class EventIDSource: Sendable {
    /// Microseconds since 1970 (injected in tests).
    typealias Clock = @Sendable () -> UInt64

    private let clock: Clock
    private let last = Mutex<UInt64>(0)

    /// Creates a source reading `clock` (the system clock by default).
    init(clock: @escaping Clock = EventIDSource.systemMicroseconds) {
        self.clock = clock
    }

    /// The next id: above every id given before.
    func next() -> UInt64 {
        let now = clock()
        return last.withLock { last in
            last = max(last + 1, now)
            return last
        }
    }

    /// The wall clock in microseconds since 1970.
    static let systemMicroseconds: Clock = {
        UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
    }
}
