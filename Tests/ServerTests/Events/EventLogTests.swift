import Foundation
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// `EventLog`: which ids it can resume from.
@Suite struct EventLogTests {
    func record(_ id: UInt64) -> EventRecord { EventRecord(id: id, topic: .todos, json: Array("[]".utf8)) }

    @Test func returnsEveryRecordAfterAnIdItHolds() {
        var log = EventLog(capacity: 8)
        for id in [10, 20, 30, 40] as [UInt64] { log.append(record(id)) }
        #expect(log.records(after: 20)?.map(\.id) == [30, 40])
        #expect(log.records(after: 25)?.map(\.id) == [30, 40])
        #expect(log.records(after: 40)?.map(\.id) == [])
        #expect(log.records(after: 10)?.map(\.id) == [20, 30, 40])
    }

    @Test func cannotResumeBeforeTheFirstRecordOrAfterTheLast() {
        var log = EventLog(capacity: 8)
        #expect(log.records(after: 5) == nil)
        log.append(record(10))
        #expect(log.records(after: 9) == nil)
        #expect(log.records(after: 11) == nil)
    }

    @Test func forgetsTheOldestWhenFull() {
        var log = EventLog(capacity: 3)
        for id in 1...5 as ClosedRange<UInt64> { log.append(record(id)) }
        #expect(log.count == 3)
        #expect(log.records(after: 1) == nil)
        #expect(log.records(after: 2)?.map(\.id) == [3, 4, 5])
        #expect(log.records(after: 3)?.map(\.id) == [4, 5])
    }
}
