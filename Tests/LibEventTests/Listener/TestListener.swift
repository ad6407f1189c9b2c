import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import LibEvent

/// One real `HTTPListener` on its own loop and a free loopback port, serving a test router.
final class TestListener: Sendable {
    let loop: EventLoop
    let socket: ListeningSocket
    let listener: HTTPListener

    init(
        _ router: Router, limits: ListenerLimits = ListenerLimits(), cors: CORSPolicy? = nil,
        bodyFiles: String? = nil
    ) throws {
        loop = try EventLoop(name: "test-http")
        socket = try ListeningSocket(host: "127.0.0.1", port: 0)
        listener = try HTTPListener(
            loop: loop, service: HTTPService(router: router, cors: cors), limits: limits, socket: socket,
            bodyFiles: bodyFiles)
        loop.run()
    }

    var port: Int { socket.port }

    /// Runs `body` on the loop and returns its result.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = LockedBox<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            result.value = body()
            done.signal()
        }
        done.wait()
        return result.value!
    }

    deinit {
        let listener = listener
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            listener.stopAccepting()
            listener.endStreams()
            done.signal()
        }
        done.wait()
        loop.stop()
    }
}
