import Foundation

/// A real PostgreSQL for the tests: `LIVESTATE_TEST_POSTGRES` (a URI) when set, else a throw-away
/// cluster started once per test process with `scripts/pg-test-cluster start --owner PID` (removed when
/// the process ends). Tests of PostgreSQL are skipped only when no PostgreSQL binaries exist on the
/// machine; when they exist and the cluster cannot start, those tests fail.
package enum TestPostgres {
    /// The package root (this file is Tests/TestSupport/TestPostgres.swift).
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Whether a PostgreSQL can be had: a URI is given or the binaries exist.
    package static let available: Bool = {
        if ProcessInfo.processInfo.environment["LIVESTATE_TEST_POSTGRES"] != nil { return true }
        return (try? run(["available"]).status) == 0
    }()

    /// The connection URI of the test database; fails the caller when the cluster could not start.
    package static func uri() throws -> String {
        try cluster.get().uri
    }

    /// The cluster's directory, for `crash`/`resume`; nil when the URI came from the environment.
    package static func directory() throws -> String? {
        try cluster.get().directory
    }

    /// Runs `scripts/pg-test-cluster COMMAND DIR` (e.g. `crash`, `resume`) on the test cluster.
    package static func control(_ command: String) throws {
        guard let directory = try directory() else { throw TestPostgresError("no cluster dir to \(command)") }
        let result = try run([command, directory])
        guard result.status == 0 else { throw TestPostgresError("\(command) failed: \(result.output)") }
    }

    private static let cluster: Result<(uri: String, directory: String?), TestPostgresError> = {
        if let uri = ProcessInfo.processInfo.environment["LIVESTATE_TEST_POSTGRES"] {
            return .success((uri, ProcessInfo.processInfo.environment["LIVESTATE_TEST_POSTGRES_DIR"]))
        }
        do {
            let result = try run(["start", "--owner", String(getpid())])
            let lines = result.output.split(separator: "\n").map(String.init)
            guard result.status == 0, lines.count >= 2 else {
                return .failure(TestPostgresError("pg-test-cluster start failed: \(result.output)"))
            }
            return .success((lines[lines.count - 1], lines[lines.count - 2]))
        } catch {
            return .failure(TestPostgresError("pg-test-cluster: \(error)"))
        }
    }()

    /// Runs the script with `posix_spawn` and `waitpid` (Foundation's `Process` never saw the script
    /// exit when called from a test's cooperative thread); output goes to a file, not a pipe: the
    /// cluster's watchdog outlives the script and would hold a pipe open.
    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let script = root + "/scripts/pg-test-cluster"
        let path = NSTemporaryDirectory() + "pg-test-cluster-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).txt"
        defer { unlink(path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([script] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, script, &actions, nil, argv, environ)
        guard spawned == 0 else { throw TestPostgresError("cannot run \(script): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let output = FileManager.default.contents(atPath: path) ?? Data()
        // WEXITSTATUS: the exit code sits in the second byte.
        return ((status >> 8) & 0xff, String(decoding: output, as: UTF8.self))
    }
}

package struct TestPostgresError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
