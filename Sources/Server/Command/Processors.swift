import Foundation

/// The machine's processors as this process sees them, for the default number of event loops.
enum Processors {
    /// The processors the process may run on: the CPUs of its affinity mask (`Cpus_allowed` in
    /// `/proc/self/status`: `taskset`, a container's `--cpuset-cpus`), or the online ones where that cannot
    /// be read. A CPU quota (`docker --cpus`) is not a mask and is not seen here.
    ///
    /// NB: `ProcessInfo.activeProcessorCount` counts the online CPUs and ignores the mask.
    static var available: Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let count = allowed(inStatus: status), count > 0
        {
            return count
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }

    /// The number of CPUs in the `Cpus_allowed:` mask of a `/proc/PID/status` text (hex words separated by
    /// commas, e.g. `ff,00000003`), or nil if there is no such line.
    static func allowed(inStatus status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else {
            return nil
        }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) where character != "," && !character.isWhitespace {
            guard let nibble = character.hexDigitValue else { return nil }
            count += nibble.nonzeroBitCount
        }
        return count
    }
}
