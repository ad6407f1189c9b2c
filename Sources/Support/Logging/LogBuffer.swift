import Glibc
import Synchronization

/// Log lines of one writer (an event loop's request lines, or the shared buffer of everything else) waiting
/// for the next flush: appended under a lock only this writer and the flush take, so writers on several
/// loops never contend, and formatted straight into bytes (the timestamp's date and time are formatted once
/// a second).
///
/// ```swift
/// let buffer = LogBuffer()        // one per event loop; every flush writes it
/// RequestLog(method: .get, path: "/todos", arrived: arrived).write(status: 200, to: buffer)
/// ```
package final class LogBuffer: Sendable {
    /// The bytes waiting and the current second's formatted prefix.
    private struct State {
        var bytes: [UInt8] = []
        var stamp = Stamp()
    }

    /// A timestamp formatter that keeps the formatted `YYYY-MM-DDTHH:MM:SS.` of the last second it saw.
    struct Stamp {
        private var second = -1
        private var prefix: [UInt8] = []

        /// Appends `2026-11-29T13:05:09.123Z LEVEL text\n` to `line`.
        mutating func format(_ level: Log.Level, _ text: String, into line: inout [UInt8]) {
            start(level, into: &line)
            line.append(contentsOf: text.utf8)
            line.append(0x0A)
        }

        /// Appends `2026-11-29T13:05:09.123Z LEVEL ` to `line` (the text and its newline follow).
        mutating func start(_ level: Log.Level, into line: inout [UInt8]) {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            if now.tv_sec != second { refresh(now.tv_sec) }
            line.append(contentsOf: prefix)
            let millis = Int(now.tv_nsec / 1_000_000)
            line.append(UInt8(48 + millis / 100))
            line.append(UInt8(48 + millis / 10 % 10))
            line.append(UInt8(48 + millis % 10))
            line.append(UInt8(ascii: "Z"))
            line.append(0x20)
            for byte in level.label.utf8 { line.append(byte) }
            line.append(0x20)
        }

        private mutating func refresh(_ seconds: Int) {
            second = seconds
            var seconds = seconds
            var parts = tm()
            gmtime_r(&seconds, &parts)
            func pad(_ value: Int32, _ width: Int) -> String {
                let text = String(value)
                return String(repeating: "0", count: max(0, width - text.count)) + text
            }
            let text =
                "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
                + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            prefix = Array(text.utf8)
        }
    }

    private let state = Mutex(State())

    /// A buffer every flush writes (a loop's).
    package convenience init() {
        self.init(registered: true)
    }

    init(registered: Bool) {
        if registered { Log.register(self) }
    }

    deinit {
        // The listener that owned it is gone: its last lines join the shared buffer (not written here: a
        // flush may be what released the last reference, with the output lock held).
        Log.adopt(take())
    }

    /// Appends one line of `level` (`text` already free of control characters); writes the buffer out
    /// when it reaches `Log.flushSize`.
    package func append(_ level: Log.Level, _ text: String) {
        append(level) { $0.append(contentsOf: text.utf8) }
    }

    /// Appends one line of `level` whose text `write` appends to the buffer's bytes (no string made first;
    /// the text must be free of control characters and end without a newline).
    package func append(_ level: Log.Level, _ write: (inout [UInt8]) -> Void) {
        Log.startFlusher()
        let full: [UInt8]? = state.withLock { state in
            state.stamp.start(level, into: &state.bytes)
            write(&state.bytes)
            state.bytes.append(0x0A)
            guard state.bytes.count >= Log.flushSize else { return nil }
            defer { state.bytes.removeAll(keepingCapacity: true) }
            return state.bytes
        }
        if let full { Log.write(full) }
    }

    /// Appends whole lines already formatted.
    func append(lines: [UInt8]) {
        guard !lines.isEmpty else { return }
        Log.startFlusher()
        state.withLock { $0.bytes.append(contentsOf: lines) }
    }

    /// The waiting bytes, leaving the buffer empty.
    func take() -> [UInt8] {
        state.withLock { state in
            guard !state.bytes.isEmpty else { return [] }
            defer { state.bytes.removeAll(keepingCapacity: true) }
            return state.bytes
        }
    }
}
