import Foundation
package import HTTP
import Synchronization

/// Thrown by `Reply.immediate()` for a streamed reply or a `.later` that never answers.
package struct NotAResponse: Error {}

extension Reply {
    /// The response of a `.response` reply, or of a `.later` one that answers within 30 seconds: a bound for a
    /// reply that never comes, wide enough for a sanitizer build on two busy cores, where Dispatch's global
    /// queue (shared with tests that block on it) once ran a 0.3 s `asyncAfter` past the 1 s this allowed.
    package func immediate() throws -> Response {
        switch self {
        case .response(let response):
            return response
        case .later(let start):
            let box = Mutex<Response?>(nil)
            let done = DispatchSemaphore(value: 0)
            start { response in
                box.withLock { $0 = response }
                done.signal()
            }
            guard done.wait(timeout: .now() + 30) == .success, let response = box.withLock({ $0 }) else {
                throw NotAResponse()
            }
            return response
        case .stream:
            throw NotAResponse()
        }
    }
}
