import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// `/events` on a real server on loopback (port 0) with raw socket clients, checking what only the
/// process can see: how many clients the hub holds.
@Suite(.serialized) struct EventStreamLiveTests {
    /// One open `GET /events` on its own socket.
    final class EventConnection {
        let fd: Int32
        private(set) var received: [UInt8] = []

        init(port: Int, target: String = "/events?topics=todos") throws {
            let client = try RawHTTPClient(port: port)
            fd = dup(client.fd)
            try client.sendRequest("GET", target)
        }

        deinit { close(fd) }

        /// Reads until `text` arrived; false at EOF or after the socket's receive timeout.
        func read(until text: String) -> Bool {
            while !String(decoding: received, as: UTF8.self).contains(text) {
                var chunk = [UInt8](repeating: 0, count: 65536)
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return false }
                received += chunk[0..<count]
            }
            return true
        }
    }

    func makeServer(threads: Int) throws -> LiveStateServer {
        var configuration = Configuration()
        configuration.port = 0
        configuration.dataPath = ":memory:"
        configuration.publicPath = nil
        configuration.heartbeat = 60
        configuration.threads = threads
        let server = try LiveStateServer(configuration: configuration)
        server.start()
        return server
    }

    @Test(arguments: [1, 2])
    func closingAConnectionRemovesItsSubscriberAtOnce(threads: Int) throws {
        let server = try makeServer(threads: threads)
        defer { server.shutdown() }
        let hub = server.app.events
        let baseline = hub.clientCount
        var connections = try (0..<6).map { _ in try EventConnection(port: server.port) }
        for connection in connections { #expect(connection.read(until: "event: todos")) }
        #expect(eventually { hub.clientCount == baseline + 6 })
        connections.removeLast(2)
        #expect(eventually(timeout: 5) { hub.clientCount == baseline + 4 })
        connections.removeAll()
        #expect(eventually(timeout: 5) { hub.clientCount == baseline })
    }

    @Test func everyLoopDeliversEveryChangeToItsClients() throws {
        let server = try makeServer(threads: 2)
        defer { server.shutdown() }
        let connections = try (0..<8).map { _ in try EventConnection(port: server.port) }
        for connection in connections { #expect(connection.read(until: "Buy Milk")) }
        let response = try RawHTTPClient.request(
            port: server.port, "POST", "/todos", headers: [("Content-Type", "application/json")],
            body: Array(#"{"title":"Water the plants"}"#.utf8))
        #expect(response.status == 201)
        for connection in connections { #expect(connection.read(until: "Water the plants")) }
    }

    @Test func shutdownEndsEveryStreamAndTheHub() throws {
        let server = try makeServer(threads: 2)
        let connections = try (0..<4).map { _ in try EventConnection(port: server.port) }
        for connection in connections { #expect(connection.read(until: "event: todos")) }
        #expect(server.app.events.clientCount == 4)
        server.shutdown()
        // NB: what the client sees is checked on the binary (integration/live, SIGTERM): here the process lives on.
        #expect(server.app.events.clientCount == 0)
        #expect(server.app.events.isShutDown)
    }
}
