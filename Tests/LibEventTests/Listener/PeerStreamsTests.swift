import Testing

@testable import HTTP
@testable import LibEvent

/// The open streams of each client address, and the 429 past its cap.
@Suite struct PeerStreamsTests {
    @Test func eachAddressHoldsAtMostItsCap() {
        let peers = PeerStreams(limit: 2)
        #expect(peers.take("10.0.0.7") && peers.take("10.0.0.7"))
        #expect(!peers.take("10.0.0.7"))
        #expect(peers.take("10.0.0.8"), "another address has its own slots")
        peers.give("10.0.0.7")
        #expect(peers.take("10.0.0.7"))
        peers.give("10.0.0.7")
        peers.give("10.0.0.7")
        #expect(peers.held(by: "10.0.0.7") == 0)
    }

    @Test func zeroIsNoCap() {
        let peers = PeerStreams(limit: 0)
        #expect((0..<1_000).allSatisfy { _ in peers.take("127.0.0.1") })
    }

    @Test func theRefusalIs429WithTheStreamsCORSFields() throws {
        let refusal = PeerStreams(limit: 3).refusal(corsOf: [
            "Content-Type": "text/event-stream", "Access-Control-Allow-Origin": "http://localhost:5173",
            "Vary": "Origin",
        ])
        #expect(refusal.status == 429 && refusal.headers["Retry-After"] == "5")
        #expect(refusal.headers["Access-Control-Allow-Origin"] == "http://localhost:5173")
        #expect(refusal.headers["Vary"] == "Origin")
        #expect(refusal.headers["Content-Type"] != "text/event-stream")
        #expect(String(decoding: refusal.body, as: UTF8.self).contains("too_many_streams"))
    }
}
