import Foundation
import Synchronization
import Testing

@testable import HTTP
@testable import LibEvent
@testable import Server

/// The frame bytes (`SSE`) and `EventRecord`.
@Suite struct SSEFormatTests {
    @Test func framesAnEventWithIdNameAndOneDataLine() {
        let frame = SSE.event(id: 41, name: "todos", data: Array(#"[{"id":1}]"#.utf8))
        #expect(String(decoding: frame, as: UTF8.self) == "id: 41\nevent: todos\ndata: [{\"id\":1}]\n\n")
    }

    @Test func splitsAValueWithLineBreaksIntoDataLines() {
        let frame = SSE.event(id: 1, name: "x", data: Array("a\r\nb\nc".utf8))
        #expect(String(decoding: frame, as: UTF8.self) == "id: 1\nevent: x\ndata: a\ndata: b\ndata: c\n\n")
    }

    @Test func recordKeepsTheDiffFrameForDiffClientsOnly() {
        let record = EventRecord(id: 7, topic: .posts, json: Array("[]".utf8), diffJSON: Array("{}".utf8))
        #expect(String(decoding: record.frame(diff: false), as: UTF8.self).hasSuffix("data: []\n\n"))
        #expect(String(decoding: record.frame(diff: true), as: UTF8.self).hasSuffix("data: {}\n\n"))
        let plain = EventRecord(id: 8, topic: .image, json: Array("{}".utf8))
        #expect(plain.frame(diff: true) == plain.frame)
    }
}

/// `EventTopic` and `EventRequest`: what `/events` accepts.
@Suite struct EventRequestTests {
    @Test func noTopicsMeansAll() throws {
        let options = try EventRequest(Request(.get, "/events"))
        #expect(options.topics == Set(EventTopic.allCases))
        #expect(!options.diff && options.lastEventID == nil)
    }

    @Test func readsTopicsDiffAndLastEventID() throws {
        let options = try EventRequest(
            Request(.get, "/events?topics=todos,%20posts&topics=image&diff=1", headers: ["Last-Event-ID": "42"]))
        #expect(options.topics == [.todos, .posts, .image])
        #expect(options.diff && options.lastEventID == 42)
    }

    @Test func readsLastEventIDFromTheQueryForANewEventSource() throws {
        #expect(try EventRequest(Request(.get, "/events?lastEventID=42")).lastEventID == 42)
        // The header a reconnecting EventSource sends wins over the page's first value.
        let both = try EventRequest(Request(.get, "/events?lastEventID=42", headers: ["Last-Event-ID": "50"]))
        #expect(both.lastEventID == 50)
    }

    @Test(arguments: [
        "/events?topics=todos,nope", "/events?topics=", "/events?topics=,", "/events?diff=maybe",
        "/events?topic=todos", "/events?topics=todos&since=4",
    ])
    func refusesWithA400(target: String) {
        #expect(throws: HTTPError.self) { try EventRequest(Request(.get, target)) }
        do {
            _ = try EventRequest(Request(.get, target))
        } catch {
            #expect(error.status == 400)
        }
    }

    @Test func aMalformedLastEventIDCountsAsAFirstConnect() throws {
        let options = try EventRequest(Request(.get, "/events", headers: ["Last-Event-ID": "abc"]))
        #expect(options.lastEventID == nil)
    }

    @Test func onlyFrameworksIsAPassthroughTopic() {
        #expect(EventTopic.allCases.filter { !$0.replaysCurrentValue } == [.frameworks])
        #expect(EventTopic.allCases.filter(\.isCollection) == [.todos, .posts, .albums])
    }
}

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
}

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

/// `CollectionDiff`: the change between two lists.
@Suite struct CollectionDiffTests {
    @Test func findsInsertedUpdatedAndDeletedById() {
        let old = [Item(id: 1, title: "a"), Item(id: 2, title: "b"), Item(id: 3, title: "c")]
        let new = [Item(id: 3, title: "c"), Item(id: 2, title: "B"), Item(id: 4, title: "d")]
        let diff = CollectionDiff(from: old, to: new)
        #expect(diff.inserted == [Item(id: 4, title: "d")])
        #expect(diff.updated == [Item(id: 2, title: "B")])
        #expect(diff.deleted == [1])
    }

    @Test func encodesAsTheContractSays() throws {
        let diff = CollectionDiff(from: [Item(id: 1, title: "a")], to: [])
        let json = String(decoding: try JSONEncoder().encode(diff), as: UTF8.self)
        #expect(json.contains(#""deleted":[1]"#) && json.contains(#""inserted":[]"#))
    }
}
