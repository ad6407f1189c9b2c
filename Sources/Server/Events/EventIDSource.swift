import Foundation
import HTTP
import Support
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
    /// The last id given.
    private let last: Mutex<UInt64>

    /// Creates a source reading `clock` (the system clock by default).
    init(clock: @escaping Clock = EventIDSource.systemMicroseconds) {
        self.clock = clock
        last = Mutex(0)
    }

    /// Creates a source for a journal: the ids of journaled events come with their values
    /// (`next(journaled:)`), the others take the next number after the last id given, starting at `floor` (no clock:
    /// a clock would overtake the journal's ids, which grow by one block per entry).
    init(journalFloor floor: UInt64) {
        clock = { 0 }
        last = Mutex(floor)
    }

    /// How many ids each journal entry leaves for instance-local events after it (see
    /// docs/architecture-instances.md): journal entry `n` is event id `n × 65536` on every instance.
    static let journalBlock: UInt64 = 65536

    /// The id of an event whose journal entry numbered it (`journaled`, carried with the value): that id
    /// when it is above every id given before, else the next local one (logged).
    func next(journaled: UInt64) -> UInt64 {
        take(journaled: journaled)
    }

    /// Makes every id given from now on above `floor` (a journal id's block that was handed out before).
    func raise(to floor: UInt64) {
        last.withLock { $0 = max($0, floor) }
    }

    /// The next id: above every id given before.
    func next() -> UInt64 {
        take(journaled: nil)
    }

    /// `journaled` when it is above every id given before; else (nil, or not above) the next local id.
    private func take(journaled: UInt64?) -> UInt64 {
        let now = clock()
        return last.withLock { last in
            if let journaled {
                if journaled > last {
                    last = journaled
                    return journaled
                }
                // NB: only when more than a block of local events came between two entries; the event
                // then gets a local id (different on other instances) instead of breaking the order.
                Log.error("event id \(journaled) of the journal is not above \(last); a local id is used")
            }
            last = max(last + 1, now)
            return last
        }
    }

    /// The wall clock in microseconds since 1970.
    static let systemMicroseconds: Clock = {
        UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
    }
}
