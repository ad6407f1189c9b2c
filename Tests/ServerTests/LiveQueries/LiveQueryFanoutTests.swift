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
}
