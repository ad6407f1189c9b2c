import Glibc

/// The one line per request: method, path, status and the time since the request arrived, at
/// level `info`, e.g. `GET /todos 200 0.3ms`; a stream's line is written when its head is sent.
///
/// ```swift
/// let arrived = RequestLog.now()
/// // … answer the request …
/// RequestLog(method: .get, path: "/todos", arrived: arrived).write(status: 200, to: loopBuffer)
/// ```
package struct RequestLog: Sendable {
    /// The request's method.
    package var method: HTTPMethod
    /// The request's percent-decoded path.
    package var path: String
    /// When the request arrived (`now()`).
    package var arrived: UInt64

    package init(method: HTTPMethod, path: String, arrived: UInt64) {
        self.method = method
        self.path = path
        self.arrived = arrived
    }

    /// Writes the line for an answer with `status` to `buffer` (the loop's own), or to the shared one;
    /// `note` is appended (` (stream)`).
    package func write(status: Int, note: String = "", to buffer: LogBuffer? = nil) {
        guard Log.enabled(.info) else { return }
        let micros = (Self.now() - arrived) / 1000
        let line = "\(method.rawValue) \(path) \(status) \(micros / 1000).\(micros % 1000 / 100)ms\(note)"
        guard let buffer else {
            Log.info(line)
            return
        }
        buffer.append(.info, Log.oneLine(line))
    }

    /// Monotonic nanoseconds (`CLOCK_MONOTONIC`).
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
