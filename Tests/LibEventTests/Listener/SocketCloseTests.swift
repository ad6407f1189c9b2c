import CEvent
import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import LibEvent

/// How a connection's socket is closed beside the epoll changelist, and the `Date` made once a second.
@Suite struct SocketCloseTests {
    /// Whether the peer of a stream socket sees its end: 1 an end of stream, 0 still open, -1 an error.
    private static func peerState(_ fd: Int32) -> Int {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        if count == 0 { return 1 }
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1
    }

    /// A listener answering `GET /doc` with `{"a":1}`.
    private static func docServer() throws -> TestListener {
        var router = Router()
        router.get("/doc") { _ in .response(.json(encoded: Array(#"{"a":1}"#.utf8))) }
        return try TestListener(router)
    }

    @Test func aSocketClosedAfterTheTurnStaysOpenUntilTheLoopTurnedOnce() throws {
        let loop = try EventLoop(name: "test-close")
        loop.run()
        defer { loop.stop() }
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { Glibc.close(pair[1]) }
        let (mine, peer) = (pair[0], pair[1])
        let duringTheTurn = LockedBox(-2)
        loop.execute {
            LingeringClose.closeAfterTurn(mine, base: loop.base)
            duringTheTurn.value = Self.peerState(peer)
        }
        #expect(eventually { duringTheTurn.value != -2 })
        // Still open in the turn that asked (its epoll removal is not applied yet), closed soon after.
        #expect(duringTheTurn.value == 0)
        #expect(eventually { Self.peerState(peer) == 1 })
    }

    @Test func aClosedConnectionGetsItsAnswerAndAnEndOfStream() throws {
        let server = try Self.docServer()
        for _ in 0..<20 {
            let client = try RawHTTPClient(port: server.port)
            try client.sendRequest("GET", "/doc", close: true)
            #expect(try client.readResponse().text == #"{"a":1}"#)
            var byte: UInt8 = 0
            #expect(recv(client.fd, &byte, 1, 0) == 0)  // an end of stream, not a reset or a timeout
        }
    }

    @Test func responsesCarryOneDateOfNow() throws {
        let server = try Self.docServer()
        let client = try RawHTTPClient(port: server.port)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for _ in 0..<3 {
            try client.sendRequest("GET", "/doc")
            let response = try client.readResponse()
            let dates = response.headers.filter { $0.name.lowercased() == "date" }
            #expect(dates.count == 1)
            let date = try #require(dates.first.flatMap { formatter.date(from: $0.value) })
            #expect(abs(date.timeIntervalSinceNow) < 5)
        }
    }

    @Test func openConnectionsAreServedAfterStopAcceptingClosedTheListenerCopy() throws {
        let server = try Self.docServer()
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/doc")
        #expect(try client.readResponse().status == 200)
        let listener = server.listener
        server.onLoop { listener.stopAccepting() }
        // The copy is closed on a later turn; the open connection goes on being served across it.
        for _ in 0..<3 {
            try client.sendRequest("GET", "/doc")
            #expect(try client.readResponse().text == #"{"a":1}"#)
        }
    }
}
