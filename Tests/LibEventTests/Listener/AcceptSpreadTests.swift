import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import LibEvent

/// How the loops of one listening socket share the connections waiting for them (`AcceptGuard.accepted`).
@Suite struct AcceptSpreadTests {
    /// Two loops with a listener each on one socket; `GET /loop` answers the name of the loop that serves it.
    private final class TwoLoops: Sendable {
        let socket: ListeningSocket
        let loops: [EventLoop]
        let listeners: [HTTPListener]

        init() throws {
            socket = try ListeningSocket(host: "127.0.0.1", port: 0)
            var loops: [EventLoop] = []
            var listeners: [HTTPListener] = []
            for name in ["first", "second"] {
                var router = Router()
                router.get("/loop") { _ in .response(.json(encoded: Array("\"\(name)\"".utf8))) }
                let loop = try EventLoop(name: "test-\(name)")
                loops.append(loop)
                listeners.append(
                    try HTTPListener(
                        loop: loop, service: HTTPService(router: router), limits: ListenerLimits(), socket: socket))
            }
            self.loops = loops
            self.listeners = listeners
            for loop in loops { loop.run() }
        }

        /// Holds every loop inside a callback until the returned function is called.
        func holdLoops() -> @Sendable () -> Void {
            let held = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            for loop in loops {
                loop.execute {
                    held.signal()
                    release.wait()
                }
            }
            for _ in loops { held.wait() }
            let count = loops.count
            return { for _ in 0..<count { release.signal() } }
        }

        deinit {
            for (loop, listener) in zip(loops, listeners) {
                let done = DispatchSemaphore(value: 0)
                loop.execute {
                    listener.stopAccepting()
                    done.signal()
                }
                done.wait()
                loop.stop()
            }
        }
    }

    @Test func aBurstOfConnectionsIsSharedByTheLoops() throws {
        let server = try TwoLoops()
        // The connections all wait in the backlog while both loops are busy, then both loops wake to them
        // at once, as when a client opens its connections together (wrk's 64 all landed on one loop).
        let release = server.holdLoops()
        let clients = try (0..<64).map { _ in try RawHTTPClient(port: server.socket.port) }
        release()
        var served: [String: Int] = [:]
        for client in clients {
            try client.sendRequest("GET", "/loop")
            served[try client.readResponse().text, default: 0] += 1
        }
        #expect(served.values.reduce(0, +) == 64)
        #expect(served["\"first\"", default: 0] >= 16, "\(served)")
        #expect(served["\"second\"", default: 0] >= 16, "\(served)")
    }
}
