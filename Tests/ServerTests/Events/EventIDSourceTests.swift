import Foundation
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// `EventIDSource`: ids grow and start from the clock.
@Suite struct EventIDSourceTests {
    @Test func startsFromTheClockInMicroseconds() {
        let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        let id = EventIDSource().next()
        #expect(id >= before && id < before + 60_000_000)
    }

    /// A clock the test sets by hand.
    final class ManualClock: Sendable {
        let now = Mutex<UInt64>(500)
    }

    /// A journal's source started below a block that was handed out (a restart that replays entries) is
    /// raised past it once they are replayed; it never goes down.
    @Test func aJournalSourceIsRaisedPastABlock() {
        let ids = EventIDSource(journalFloor: 65536)
        #expect(ids.next(journaled: 131072) == 131072)
        ids.raise(to: 196608)
        #expect(ids.next() == 196609)
        ids.raise(to: 65536)
        #expect(ids.next() == 196610)
    }

    @Test func growsWhenTheClockStandsStillOrGoesBack() {
        let clock = ManualClock()
        let ids = EventIDSource(clock: { clock.now.withLock { $0 } })
        let a = ids.next()
        clock.now.withLock { $0 = 100 }
        let b = ids.next()
        clock.now.withLock { $0 = 900 }
        let c = ids.next()
        #expect([a, b, c] == [500, 501, 900])
    }

    @Test func localIdsFollowTheLastIdGivenWhetherLocalOrJournaled() {
        let block = EventIDSource.journalBlock
        let ids = EventIDSource(journalFloor: 10 * block)
        let local = ids.next()
        // An entry that emitted nothing (entry 11: a refused name) leaves no id behind.
        let entry = ids.next(journaled: 12 * block)
        let after = [ids.next(), ids.next()]
        #expect(local == 10 * block + 1)
        #expect(entry == 12 * block)
        #expect(after == [12 * block + 1, 12 * block + 2])
    }

    @Test func aJournaledIdCarriedWithItsValueIsTheEventsIdAndNeverGoesBack() {
        let block = EventIDSource.journalBlock
        let ids = EventIDSource(journalFloor: 10 * block)
        let first = ids.next(journaled: 12 * block)
        let local = ids.next()
        // An entry numbered below an id already given (more than a block of local events came between)
        // gets a local id above it instead of breaking the order.
        let late = ids.next(journaled: 12 * block)
        #expect([first, local, late] == [12 * block, 12 * block + 1, 12 * block + 2])
        #expect(ids.next(journaled: 13 * block) == 13 * block)
    }
}
