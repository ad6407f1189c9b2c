import Foundation
import TestSupport
import Testing

/// The default number of event loops follows the processors the process may run on.
@Suite(.serialized) struct DefaultLoopsBinaryTests {
    static let taskset = "/usr/bin/taskset"
    static let hasTaskset = FileManager.default.isExecutableFile(atPath: taskset)

    /// The loop count the server says it started with, run on the CPUs `cpus` (a `taskset -c` list).
    func loops(onCPUs cpus: String, _ arguments: [String] = []) throws -> String {
        let server = try LivestateProcess(
            ["--port", "0", "--data", ":memory:"] + arguments, environment: ["LOG_LEVEL": "info"],
            launcher: [Self.taskset, "-c", cpus])
        try server.waitForListening()
        _ = eventually(timeout: 5) { server.stderr.contains(" loop(s)") }
        return server.stderr.split(separator: " with ").last?.split(separator: " ").first.map(String.init) ?? ""
    }

    @Test(.enabled(if: hasTaskset)) func oneProcessorMeansOneLoop() throws {
        #expect(try loops(onCPUs: "0") == "1")
    }

    @Test(.enabled(if: hasTaskset && ProcessInfo.processInfo.processorCount > 1))
    func twoProcessorsMeanTwoLoopsAndTheFlagWins() throws {
        #expect(try loops(onCPUs: "0,1") == "2")
        #expect(try loops(onCPUs: "0", ["--threads", "3"]) == "3")
    }
}
