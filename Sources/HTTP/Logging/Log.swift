import Foundation
import Synchronization

/// The service's one small logger: a line per event on stderr, level from `LOG_LEVEL`.
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
    private static let output = Mutex(())

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
        output.withLock { _ in
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// `text` with control characters written as `\u{…}` escapes.
    ///
    /// NB: messages carry request paths, percent-decoded: `%0A` would otherwise start a forged log line and
    /// `%1B` send terminal escapes to whoever reads the log.
    private static func oneLine(_ text: String) -> String {
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
