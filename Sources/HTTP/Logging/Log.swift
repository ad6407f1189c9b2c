import Foundation
import Glibc
import Synchronization

/// The service's one small logger: a line per event on stderr, level from `LOG_LEVEL`.
///
/// Lines of `debug` and `info` (the one line per request) are appended to one locked buffer and written
/// with a single `write(2)` every `flushInterval`, when the buffer reaches `flushSize`, before any
/// `warning` or `error` line (which is written at once, so order is kept), at `flush()` (shutdown) and at
/// `exit` (an `atexit` handler): no request's `write` syscall on the hot path, no line lost on SIGTERM.
/// A crash (a trap, `kill -9`) loses at most the last `flushInterval` of lines.
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
    /// Lines not yet written to stderr.
    private static let pending = Mutex<[UInt8]>([])
    /// How long a buffered line may wait.
    package static let flushInterval = 0.05
    /// A buffer this full is written at once.
    package static let flushSize = 64 << 10
    // NB: started by the first buffered line: a thread that only sleeps and flushes, plus the exit handler.
    private static let flusher: Void = {
        atexit { Log.flush() }
        let thread = Thread {
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
        let line = "\(timestamp()) \(level.label) \(oneLine(message()))\n"
        let now = level >= .warning
        if !now { _ = flusher }
        pending.withLock { pending in
            pending.append(contentsOf: line.utf8)
            if now || pending.count >= flushSize { writeOut(&pending) }
        }
    }

    /// Writes every buffered line to stderr now (shutdown calls it; so does a timer and `exit`).
    package static func flush() {
        pending.withLock { pending in
            if !pending.isEmpty { writeOut(&pending) }
        }
    }

    // NB: under the lock, so lines from several threads reach stderr whole and in order.
    private static func writeOut(_ pending: inout [UInt8]) {
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
        pending.removeAll(keepingCapacity: true)
    }

    /// `text` with control characters written as `\u{…}` escapes.
    ///
    /// NB: messages carry request paths, percent-decoded: `%0A` would otherwise start a forged log line and
    /// `%1B` send terminal escapes to whoever reads the log.
    private static func oneLine(_ text: String) -> String {
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

    /// UTC time with milliseconds, e.g. `2026-11-29T13:05:09.123Z`.
    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + "\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
