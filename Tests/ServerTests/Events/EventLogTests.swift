import Foundation
import Synchronization
import Testing

@testable import HTTP
@testable import Server

/// `EventLog`: which ids it can resume from.
@Suite struct EventLogTests {
    func record(_ id: UInt64) -> EventRecord { EventRecord(id: id, topic: .todos, json: Array("[]".utf8)) }

    @Test func returnsEveryRecordAfterAnIdItHolds() {
        var log = EventLog(maxCount: 8)
        for id in [10, 20, 30, 40] as [UInt64] { log.append(record(id)) }
        #expect(log.records(after: 20)?.map(\.id) == [30, 40])
        #expect(log.records(after: 25)?.map(\.id) == [30, 40])
        #expect(log.records(after: 40)?.map(\.id) == [])
        #expect(log.records(after: 10)?.map(\.id) == [20, 30, 40])
    }

    @Test func cannotResumeBeforeTheFirstRecordOrAfterTheLast() {
        var log = EventLog(maxCount: 8)
        #expect(log.records(after: 5) == nil)
        log.append(record(10))
        #expect(log.records(after: 9) == nil)
        #expect(log.records(after: 11) == nil)
    }

    /// A restart that makes the events after `id` again resumes from `id` on, not from before it.
    @Test func holdsEverythingAfterADeclaredId() {
        var log = EventLog(maxCount: 2)
        log.holdsEverything(after: 5)
        for id in [10, 20] as [UInt64] { log.append(record(id)) }
        #expect(log.records(after: 5)?.map(\.id) == [10, 20])
        #expect(log.records(after: 7)?.map(\.id) == [10, 20])
        #expect(log.records(after: 4) == nil)
        log.append(record(30))
        #expect(log.records(after: 5) == nil, "the first of them was dropped since")
        #expect(log.records(after: 10)?.map(\.id) == [20, 30])
    }

    @Test func forgetsTheOldestWhenFull() {
        var log = EventLog(maxCount: 3)
        for id in 1...5 as ClosedRange<UInt64> { log.append(record(id)) }
        #expect(log.count == 3)
        #expect(log.records(after: 1) == nil)
        #expect(log.records(after: 2)?.map(\.id) == [3, 4, 5])
        #expect(log.records(after: 3)?.map(\.id) == [4, 5])
    }

    func record(_ id: UInt64, bytes: Int, topic: EventTopic = .todos) -> EventRecord {
        EventRecord(id: id, topic: topic, json: Array(repeating: UInt8(ascii: "1"), count: bytes))
    }

    @Test func dropsTheOldestWhileTheFramesTakeMoreThanItsBytesButKeepsTheNewest() {
        var log = EventLog(maxCount: 1024, maxBytes: 10_000)
        for id in 1...20 as ClosedRange<UInt64> { log.append(record(id, bytes: 1_000)) }
        #expect(log.byteCount <= 10_000)
        #expect(log.count == 9)
        #expect(log.records(after: 10) == nil)
        #expect(log.records(after: 11)?.map(\.id) == Array(12...20))
        log.append(record(21, bytes: 50_000))
        #expect(log.count == 1 && log.records(after: 20)?.map(\.id) == [21])
    }

    @Test func pagesStopAfterTheirBytesAndSkipOtherTopics() throws {
        var log = EventLog()
        for id in 1...10 as ClosedRange<UInt64> {
            log.append(record(id, bytes: 100, topic: id.isMultiple(of: 2) ? .todos : .posts))
        }
        let first = try #require(log.page(after: 1, topics: [.todos], diff: false, maxBytes: 200))
        #expect(first.frames.count == 2 && first.lastID == 4 && !first.isComplete)
        let rest = try #require(log.page(after: first.lastID, topics: [.todos], diff: false, maxBytes: 10_000))
        #expect(rest.frames.count == 3 && rest.lastID == 10 && rest.isComplete)
        #expect(log.page(after: 0, topics: [.todos], diff: false, maxBytes: 100) == nil)
    }

    @Test func staysCorrectAcrossCompactions() {
        var log = EventLog(maxCount: 100)
        for id in 1...10_000 as ClosedRange<UInt64> { log.append(record(id)) }
        #expect(log.count == 100)
        #expect(log.records(after: 9_900)?.map(\.id) == Array(9_901...10_000))
        #expect(log.records(after: 9_899) == nil)
    }

    @Test func aDroppedRecordsFramesAreFreedAtOnce() {
        var log = EventLog(maxCount: 1024, maxBytes: 10_000)
        weak var first: SharedBytes?
        do {
            let record = record(1, bytes: 6_000)
            first = record.frame
            log.append(record)
        }
        #expect(first != nil)
        log.append(record(2, bytes: 6_000))
        #expect(first == nil)
    }
}
