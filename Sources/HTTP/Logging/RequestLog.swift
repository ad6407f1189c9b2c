import Glibc
package import Support

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
        // NB: a loop's line is formatted straight into its buffer (the hot path of every request), byte by byte
        // (`append(contentsOf:)` of a string's UTF-8 costs more than the copy for these short texts); a path
        // with anything but printable ASCII takes the string path, which escapes control characters.
        guard let buffer, Self.isPrintableASCII(path) else {
            let line = "\(method.rawValue) \(path) \(status) \(micros / 1000).\(micros % 1000 / 100)ms\(note)"
            if let buffer { buffer.append(.info, Log.oneLine(line)) } else { Log.info(line) }
            return
        }
        buffer.append(.info) { line in
            for byte in method.rawValue.utf8 { line.append(byte) }
            line.append(0x20)
            for byte in path.utf8 { line.append(byte) }
            line.append(0x20)
            Self.appendDecimal(UInt64(max(0, status)), to: &line)
            line.append(0x20)
            Self.appendDecimal(micros / 1000, to: &line)
            line.append(0x2E)
            line.append(UInt8(48 + micros % 1000 / 100))
            line.append(UInt8(ascii: "m"))
            line.append(UInt8(ascii: "s"))
            for byte in note.utf8 { line.append(byte) }
        }
    }

    private static func isPrintableASCII(_ text: String) -> Bool {
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F { return false }
        return true
    }

    private static func appendDecimal(_ value: UInt64, to line: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &line) }
        line.append(UInt8(48 + value % 10))
    }

    /// Monotonic nanoseconds (`CLOCK_MONOTONIC`).
    package static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
