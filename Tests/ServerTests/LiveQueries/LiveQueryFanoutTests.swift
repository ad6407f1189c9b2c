import Foundation
import Reactive
import ReactiveTesting
import Testing

@testable import HTTP
@testable import Server

/// A live query's change reaching many clients on one loop: in slices, yielding to the loop between them.
@Suite struct LiveQueryFanoutTests {
    let key = FanoutKey()
    let loop = TestSchedulerOf<DispatchQueue>(now: DispatchQueue.SchedulerTimeType(.init(uptimeNanoseconds: 1)))

    @Test func aChangeReachesItsClientsInSlicesYieldingToTheLoopBetweenThem() {
        let engine = LiveQueryEngine(heartbeat: nil)
        let notes = engine.register("notes", query: LiveQueryEngineTests.NoteQuery.self) { "\"\($0.id)\"" }
        let fanout = notes.fanout(key: ObjectIdentifier(key), scheduler: loop)
        notes.publish(id: 10, items: LiveQueryEngineTests.start)
        loop.advance()
        let streams = (0..<600).map { _ in RecordingStream() }
        for stream in streams {
            fanout.add(stream, query: .init(groups: [1]), key: "g1", lastEventID: nil)
        }
        // Something else the loop has to do, queued as the first client gets the change.
        var changedAtProbe: Int?
        streams[0].onWrite = { [loop] in
            guard changedAtProbe == nil else { return }
            loop.schedule { changedAtProbe = streams.count { $0.events.count == 2 } }
        }
        let note = LiveQueryEngineTests.Note(id: "c", group: 1, rank: 1)
        notes.publish(id: 11, items: LiveQueryEngineTests.start + [note])
        loop.advance()
        #expect(changedAtProbe == LiveQueryFanout<LiveQueryEngineTests.NoteQuery>.sliceSize)
        #expect(streams.allSatisfy { $0.events.map(\.name) == ["result", "change"] })
    }

    @Test func versionsRecordedWhileTheLoopIsBusyReachEachClientAsOneWrite() {
        let engine = LiveQueryEngine(heartbeat: nil)
        let notes = engine.register("notes", query: LiveQueryEngineTests.NoteQuery.self) { "\"\($0.id)\"" }
        let fanout = notes.fanout(key: ObjectIdentifier(key), scheduler: loop)
        notes.publish(id: 10, items: LiveQueryEngineTests.start)
        loop.advance()
        let ones = (0..<3).map { _ in RecordingStream() }
        for stream in ones { fanout.add(stream, query: .init(groups: [1]), key: "g1", lastEventID: nil) }
        let two = RecordingStream()
        fanout.add(two, query: .init(groups: [2]), key: "g2", lastEventID: nil)
        let chunksBefore = ones.map(\.chunks) + [two.chunks]
        var items = LiveQueryEngineTests.start
        for rank in 1...3 {
            items.append(LiveQueryEngineTests.Note(id: "n\(rank)", group: 1, rank: rank))
            notes.publish(id: UInt64(10 + rank), items: items)
        }
        #expect(ones.allSatisfy { $0.events.count == 1 })
        loop.advance()
        // Three writes recorded before the loop's turn: one wake-up, one write per client with all three.
        for stream in ones {
            #expect(stream.events.map(\.name) == ["result", "change", "change", "change"])
            #expect(stream.events.compactMap(\.id) == [10, 11, 12, 13])
        }
        #expect(ones.map(\.chunks) == chunksBefore.prefix(3).map { $0 + 1 })
        #expect(two.chunks == chunksBefore[3])
        // A write alone still goes out at the loop's next turn.
        items.append(LiveQueryEngineTests.Note(id: "n4", group: 1, rank: 4))
        notes.publish(id: 14, items: items)
        loop.advance()
        #expect(ones.allSatisfy { $0.events.last?.id == 14 && $0.events.count == 5 })
    }

    @Test func aVersionThatArrivesWhileTheLoopTurnsSharesTheWriteOfTheVersionsBeforeIt() {
        let engine = LiveQueryEngine(heartbeat: nil)
        let notes = engine.register("notes", query: LiveQueryEngineTests.NoteQuery.self) { "\"\($0.id)\"" }
        let fanout = notes.fanout(key: ObjectIdentifier(key), scheduler: loop)
        notes.publish(id: 10, items: LiveQueryEngineTests.start)
        loop.advance()
        let stream = RecordingStream()
        fanout.add(stream, query: .init(groups: [1]), key: "g1", lastEventID: nil)
        let chunksBefore = stream.chunks
        var items = LiveQueryEngineTests.start
        items.append(LiveQueryEngineTests.Note(id: "n1", group: 1, rank: 1))
        notes.publish(id: 11, items: items)
        // The loop takes version 11, then, in the same turn (a request it reads), a write records version 12.
        loop.schedule { [items] in
            notes.publish(id: 12, items: items + [LiveQueryEngineTests.Note(id: "n2", group: 1, rank: 2)])
        }
        loop.advance()
        #expect(stream.events.compactMap(\.id) == [10, 11, 12])
        #expect(stream.chunks == chunksBefore + 1)
    }

    @Test func aWriteNoneOfTheLoopsQueriesCanTakeLeavesTheLoopAsleep() {
        typealias Note = LiveQueryEngineTests.Note
        let engine = LiveQueryEngine(heartbeat: nil)
        let notes = engine.register("notes", query: LiveQueryEngineTests.NoteQuery.self) { "\"\($0.id)\"" }
        let fanout = notes.fanout(key: ObjectIdentifier(key), scheduler: loop)
        notes.publish(id: 10, items: LiveQueryEngineTests.start)
        loop.advance()
        let one = RecordingStream()
        fanout.add(one, query: .init(groups: [1]), key: "g1", lastEventID: nil)
        // A write to group 2: no query of this loop can take it, so it queues no turn.
        var items = LiveQueryEngineTests.start + [Note(id: "x", group: 2, rank: 9)]
        notes.publish(id: 11, items: items)
        loop.advance()
        #expect(fanout.currentID == 10)
        // A client coming back with that version's id (seen on another loop) is not kept waiting for it:
        // nothing changed for its query since.
        let resumed = RecordingStream()
        fanout.add(resumed, query: .init(groups: [1]), key: "g1", lastEventID: 11)
        loop.advance()
        #expect(fanout.currentID == 11)
        #expect(resumed.events.isEmpty)
        // A write to group 1 wakes the loop and takes the writes waiting before it.
        items.append(Note(id: "y", group: 1, rank: 2))
        notes.publish(id: 12, items: items)
        notes.publish(id: 13, items: items + [Note(id: "z", group: 2, rank: 1)])
        loop.advance()
        #expect(fanout.currentID == 13)
        #expect(one.events.compactMap(\.id) == [10, 12])
        #expect(resumed.events.compactMap(\.id) == [12])
        // Writes nobody here takes do not pile up: every `maxWaiting`th queues a turn.
        let waiting = LiveQueryFanout<LiveQueryEngineTests.NoteQuery>.maxWaiting
        for id in 14..<(14 + UInt64(waiting)) {
            items.append(Note(id: "w\(id)", group: 2, rank: Int(id)))
            notes.publish(id: id, items: items)
        }
        loop.advance()
        #expect(fanout.currentID == 13 + UInt64(waiting))
        #expect(fanout.lastBatch == waiting)
        #expect(one.events.count == 2)
    }
}
