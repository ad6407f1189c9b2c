import Foundation
import Glibc
import Synchronization

/// The service's one small logger: a line per event on stderr, level from `LOG_LEVEL`.
///
/// Lines of `debug` and `info` are buffered and written with a single `write(2)` per buffer every
/// `flushInterval` (a flusher thread), when a buffer reaches `flushSize`, before any `warning` or `error`
/// line (which is written at once, so it follows every line logged before it), at `flush()` (shutdown) and
/// at `exit` (an `atexit` handler): no request's `write` syscall on the hot path, no line lost on SIGTERM.
/// A crash (a trap, `kill -9`) loses at most the last `flushInterval` of lines.
///
/// The one line per request goes to its event loop's own `LogBuffer` (`RequestLog.write(status:to:)`), so
/// loops never share a lock or a buffer on the hot path; other lines go to one shared buffer. A flush
/// writes the loops' buffers first, then the shared one, so `stopped` still comes after the last request.
///
/// Levels by meaning: `error` for failures of C calls and 500s, `warning` for degraded service,
/// `info` for lifecycle and the one line per request, `debug` for client errors and details.
/// Request bodies and tokens are never logged.
package enum Log {
    /// A severity, ordered from chatty to quiet.
    package enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error, off

        /// Parses `debug`, `info`, `warning`/`warn`, `error`, `off`/`none` (any case).
        package init?(name: String) {
            switch name.lowercased() {
            case "debug", "trace": self = .debug
            case "info", "notice": self = .info
            case "warning", "warn": self = .warning
            case "error", "critical": self = .error
            case "off", "none", "silent": self = .off
            default: return nil
            }
        }

        package var label: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            case .off: "off"
            }
        }

        package static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private static let current = Atomic<Int>(
        (ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Level.init(name:)) ?? .info).rawValue)
    /// Lines not yet written to stderr, of every writer without a buffer of its own.
    private static let shared = LogBuffer(registered: false)
    /// The buffers of the event loops (weak: a listener's buffer goes with it, flushed).
    private static let buffers = Mutex<[WeakBuffer]>([])
    /// Held while bytes go to stderr, so lines of several buffers reach it whole and in flush order.
    private static let output = Mutex<Void>(())
    /// How long a buffered line may wait.
    package static let flushInterval = 0.05
    /// A buffer this full is written at once.
    package static let flushSize = 64 << 10
    // NB: started by the first buffered line: a thread that only sleeps and flushes, plus the exit handler.
    private static let flusher: Void = {
        atexit { Log.flush() }
        let thread = Thread {
            ThreadName.setCurrent("livestate-log")
            while true {
                usleep(useconds_t(flushInterval * 1_000_000))
                flush()
            }
        }
        thread.name = "livestate-log"
        thread.start()
    }()

    /// The lowest level written.
    package static var level: Level {
        get { Level(rawValue: current.load(ordering: .relaxed)) ?? .info }
        set { current.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// Whether a message of `level` would be written (check before building an expensive message).
    package static func enabled(_ level: Level) -> Bool {
        level != .off && level >= self.level
    }

    package static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }
    package static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    package static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    package static func error(_ message: @autoclosure () -> String) { write(.error, message) }

    private static func write(_ level: Level, _ message: () -> String) {
        guard enabled(level) else { return }
        let text = oneLine(message())
        guard level >= .warning else {
            shared.append(level, text)
            return
        }
        output.withLock { _ in
            flushUnlocked()
            var line = [UInt8]()
            var stamp = LogBuffer.Stamp()
            stamp.format(level, text, into: &line)
            writeOut(line)
        }
    }

    /// Starts the flusher (once); called by a buffer's first line.
    static func startFlusher() { _ = flusher }

    /// Adds a loop's buffer to those every flush writes.
    static func register(_ buffer: LogBuffer) {
        buffers.withLock { buffers in
            buffers.removeAll { $0.buffer == nil }
            buffers.append(WeakBuffer(buffer: buffer))
        }
    }

    /// Writes every buffered line to stderr now (shutdown calls it; so does a timer and `exit`).
    package static func flush() {
        output.withLock { _ in flushUnlocked() }
    }

    /// Keeps the lines of a buffer that goes away for the next flush.
    static func adopt(_ lines: [UInt8]) {
        shared.append(lines: lines)
    }

    /// Writes `bytes` (whole lines of one buffer) now, in order with every flush.
    static func write(_ bytes: [UInt8]) {
        output.withLock { _ in writeOut(bytes) }
    }

    // NB: with `output` held. Each buffer's lock is held only to take its bytes, never while writing.
    private static func flushUnlocked() {
        let loops = buffers.withLock { $0.compactMap(\.buffer) }
        for buffer in loops { writeOut(buffer.take()) }
        writeOut(shared.take())
    }

    private static func writeOut(_ pending: [UInt8]) {
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else if written < 0, errno == EAGAIN {
                    usleep(1000)  // a non-blocking stderr that is full: wait for its reader
                } else {
                    break  // stderr closed or full disk: the lines are dropped, the server goes on
                }
            }
        }
    }

    /// `text` with control characters written as `\u{…}` escapes.
    ///
    /// NB: messages carry request paths, percent-decoded: `%0A` would otherwise start a forged log line and
    /// `%1B` send terminal escapes to whoever reads the log.
    package static func oneLine(_ text: String) -> String {
        // Fast path: printable ASCII only (the usual request line) needs no per-scalar property lookups.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) { return text }
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// A weak reference to a loop's buffer, for the flush list.
struct WeakBuffer: Sendable {
    weak var buffer: LogBuffer?
}
