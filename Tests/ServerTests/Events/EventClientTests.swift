import Testing

@testable import HTTP
@testable import Server

/// The cap on a client's unsent output: a live query's first result counts toward it, `/events`' replay
/// does not.
@Suite struct EventClientTests {
    private func stalledClient(countsTowardCap: Bool) -> (EventClient, RecordingStream) {
        let stream = RecordingStream()
        stream.isStalled = true
        let client = EventClient(stream: stream, topics: [], diff: false, cap: 1_000)
        let result = SharedBytes(Array(repeating: UInt8(ascii: "a"), count: 5_000))
        client.start(EventReplay(frames: [result], lastID: 1, resumeAfter: nil, countsTowardCap: countsTowardCap))
        return (client, stream)
    }

    @Test func aFirstResultNobodyReadsCutsTheClientOffAtTheNextHeartbeat() {
        let (client, stream) = stalledClient(countsTowardCap: true)
        #expect(stream.written.count == 5_000, "written at once, as the output was empty")
        #expect(!client.heartbeat())
        #expect(stream.wasAborted)
    }

    @Test func anEventsReplayNobodyReadsIsNotCounted() {
        let (client, stream) = stalledClient(countsTowardCap: false)
        #expect(client.heartbeat())
        #expect(!stream.isClosed)
    }

    @Test func aFirstResultReadInTimeKeepsTheClient() {
        let (client, stream) = stalledClient(countsTowardCap: true)
        stream.drain()
        #expect(client.heartbeat())
        #expect(!stream.isClosed)
    }
}
