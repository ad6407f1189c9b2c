import Foundation
import Reactive
import ReactiveTesting
import Testing

@testable import HTTP
@testable import Server

/// The fan-out's batching: events that wait on the loop together reach each client as one chunk.
@Suite struct EventFanoutBatchTests {
    let selections = PassthroughSubject<String, Never>()
    let key = FanoutKey()
    let loop = TestSchedulerOf<DispatchQueue>(now: DispatchQueue.SchedulerTimeType(.init(uptimeNanoseconds: 1)))

    func makeHub() -> (EventHub, EventFanout) {
        let hub = EventHub(ids: fixedClock(), heartbeat: nil)
        hub.attach(.frameworks, selections)
        return (hub, hub.fanout(key: ObjectIdentifier(key), scheduler: loop))
    }

    @Test func eventsWaitingTogetherGoOutAsOneChunkPerClient() {
        let (hub, fanout) = makeHub()
        let streams = (0..<3).map { _ in RecordingStream() }
        for stream in streams {
            hub.connect(stream, topics: [.frameworks], diff: false, lastEventID: nil, through: fanout)
        }
        let before = streams.map(\.chunks)
        // Three emissions before the loop runs: they wait there together.
        for name in ["SwiftUI", "Combine", "UIKit"] { selections.send(name) }
        #expect(streams.map(\.chunks) == before)
        loop.advance()
        for (stream, chunks) in zip(streams, before) {
            #expect(stream.chunks == chunks + 1)
            #expect(stream.events.map(\.data) == [#""SwiftUI""#, #""Combine""#, #""UIKit""#])
            #expect(stream.events.map(\.id) == [1_000, 1_001, 1_002])
        }
    }

    /// A hub and one client of its fan-out.
    func connectedClient() -> (EventHub, RecordingStream) {
        let (hub, fanout) = makeHub()
        let stream = RecordingStream()
        hub.connect(stream, topics: [.frameworks], diff: false, lastEventID: nil, through: fanout)
        return (hub, stream)
    }

    @Test func anEventAloneGoesOutAtOnceAndOrderHoldsAcrossBatches() {
        let (hub, stream) = connectedClient()
        selections.send("SwiftUI")
        loop.advance()
        let afterFirst = stream.chunks
        selections.send("Combine")
        selections.send("UIKit")
        loop.advance()
        #expect(stream.chunks == afterFirst + 1)
        #expect(stream.events.map(\.data) == [#""SwiftUI""#, #""Combine""#, #""UIKit""#])
        withExtendedLifetime(hub) {}
    }

    @Test func theEventsBeforeShutdownStillReachTheClients() {
        let (hub, stream) = connectedClient()
        selections.send("SwiftUI")
        hub.shutdown()
        loop.advance()
        #expect(stream.events.map(\.data) == [#""SwiftUI""#])
        #expect(stream.isClosed)
    }
}
