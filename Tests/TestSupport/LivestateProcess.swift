package import Foundation

/// The built `livestate` binary running as a child process on a free port.
package final class LivestateProcess: @unchecked Sendable {
    // NB: @unchecked because the output buffers sit behind a lock and `port` is set before sharing.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The `livestate` executable next to the test bundle (`swift build --build-tests` builds it too).
    package static var binary: URL {
        get throws {
            var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for _ in 0..<3 {
                let candidate = directory.appendingPathComponent("livestate")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                directory = directory.deletingLastPathComponent()
            }
            if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
                let candidate = bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("livestate")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
            throw Failure(description: "the livestate binary is not built next to the tests (run swift build first)")
        }
    }

    package let process = Process()
    private let output = LockedBox<(stdout: [UInt8], stderr: [UInt8], closed: Int)>(([], [], 0))
    /// The port from the `listening on` line (0 until it was read).
    package private(set) var port = 0
    /// The `listening on` line.
    package private(set) var listeningLine = ""

    /// Starts `livestate arguments` with `environment` added to a clean one, in `directory` (the test's
    /// own working directory when nil); `launcher` runs it (`["/usr/bin/taskset", "-c", "0"]`).
    package init(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, launcher: [String] = []
    ) throws {
        // The command runs through `watchdog`, which becomes it (same process), so signals and the exit
        // status are the server's own.
        let command =
            launcher.isEmpty ? [try Self.binary.path] + arguments : launcher + [try Self.binary.path] + arguments
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.watchdog] + command
        if let directory { process.currentDirectoryURL = directory }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LIVESTATE_") }
        env["LOG_LEVEL"] = env["LOG_LEVEL"] ?? "warning"
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        Self.collect(out, into: output, isStandardOutput: true)
        Self.collect(err, into: output, isStandardOutput: false)
        try process.run()
    }

    /// Runs `argv[1...]` in this process after forking a watcher that kills it (SIGKILL) once the test
    /// process is gone, so a test run killed by its timeout or crashing leaves no server behind; the watcher
    /// holds none of the server's descriptors and ends with the server.
    private static let watchdog = """
        import os, sys, time
        test = os.getppid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.closerange(3, 1 << 16)
            server = os.getppid()
            while True:
                time.sleep(0.2)
                if os.getppid() != server:
                    os._exit(0)
                try:
                    with open(f"/proc/{server}/stat") as stat:
                        parent = int(stat.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError):
                    os._exit(0)
                if parent != test:
                    os.kill(server, 9)
                    os._exit(0)
        os.execvp(sys.argv[1], sys.argv[1:])
        """

    /// Appends what `pipe` delivers to one of the buffers; counts its EOF.
    // NB: a thread of its own, not a `readabilityHandler`: those run on Dispatch's shared pool, which tests
    // that block pool threads (clients looping on synchronous sockets) can use up on a 2-core machine; the
    // child's `listening on` line then sits unread until the wait gives up.
    private static func collect(
        _ pipe: Pipe, into output: LockedBox<(stdout: [UInt8], stderr: [UInt8], closed: Int)>,
        isStandardOutput: Bool
    ) {
        let handle = pipe.fileHandleForReading
        let reader = Thread {
            while true {
                let data = handle.availableData
                output.mutate {
                    if isStandardOutput { $0.stdout += data } else { $0.stderr += data }
                    if data.isEmpty { $0.closed += 1 }
                }
                if data.isEmpty { return }
            }
        }
        reader.start()
    }

    /// Starts a server on `--port 0` with an in-memory store and waits for its `listening on` line.
    package static func serve(_ arguments: [String] = [], environment: [String: String] = [:]) throws
        -> LivestateProcess
    {
        let server = try LivestateProcess(["--port", "0", "--data", ":memory:"] + arguments, environment: environment)
        try server.waitForListening()
        return server
    }

    package var stdout: String { String(decoding: output.value.stdout, as: UTF8.self) }
    package var stderr: String { String(decoding: output.value.stderr, as: UTF8.self) }

    /// Waits for the first stdout line and reads the port from it.
    package func waitForListening(timeout: Double = 10) throws {
        guard eventually(timeout: timeout, { stdout.contains("\n") || !process.isRunning }) else {
            throw Failure(description: "no listening line within \(timeout) s; stderr: \(stderr)")
        }
        let line = stdout.prefix { $0 != "\n" }
        listeningLine = String(line)
        guard line.hasPrefix("listening on http://"), let portText = line.split(separator: ":").last,
            let port = Int(portText)
        else { throw Failure(description: "unexpected first line '\(line)'; stderr: \(stderr)") }
        self.port = port
    }

    /// Waits for the process to exit; nil if it is still running after `timeout`.
    package func waitForExit(timeout: Double = 10) -> Int32? {
        guard eventually(timeout: timeout, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Sends a signal.
    package func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            // NB: bounded, not `waitUntilExit` (see `FakeUpstream`'s deinit).
            _ = eventually(timeout: 5) { !process.isRunning }
        }
    }

    /// Runs `livestate arguments` to completion: exit status, stdout, stderr.
    package static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, timeout: Double = 10
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try LivestateProcess(arguments, environment: environment, directory: directory)
        guard let status = child.waitForExit(timeout: timeout) else {
            throw Failure(description: "livestate \(arguments) did not exit within \(timeout) s")
        }
        // The pipes may still hold the last bytes: wait for both to reach EOF.
        _ = eventually(timeout: 2) { child.output.value.closed == 2 }
        return (status, child.stdout, child.stderr)
    }
}
