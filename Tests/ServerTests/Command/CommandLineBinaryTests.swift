import Foundation
import TestSupport
import Testing

/// The command line as a person meets it, through the built binary: `--version`, `-h`, and a start that
/// fails prints exactly one line, exits 1 and leaves no file behind.
@Suite(.serialized) struct CommandLineBinaryTests {
    /// An empty working directory of its own (no `./public`, no `./livestate.sqlite`).
    private func emptyDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "livestate-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    private func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    private func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
            .map { $0 }
    }

    @Test func versionPrintsTheVersionAndExits0() throws {
        let result = try LivestateProcess.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout == "livestate 1.0.0\n")
        #expect(result.stderr.isEmpty)
        // Wherever it stands among the flags.
        #expect(try LivestateProcess.run(["--port", "1", "--version"]).stdout == "livestate 1.0.0\n")
    }

    @Test func shortHelpPrintsTheUsageWithVersion() throws {
        let result = try LivestateProcess.run(["-h"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Usage: livestate"))
        #expect(result.stdout.contains("--version"))
        #expect(result.stdout.contains("-h, --help"))
    }

    @Test func aPortInUseIsOneLineExit1AndNoDatabaseFileIsLeft() throws {
        let other = try LivestateProcess.serve()
        let directory = try emptyDirectory()
        // The defaults a new user runs with: ./livestate.sqlite and ./public, neither there.
        let result = try LivestateProcess.run(["--port", String(other.port)], directory: directory)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            lines(result.stderr) == [
                "livestate: cannot start: cannot listen on 127.0.0.1:\(other.port): Address already in use"
            ])
        #expect(try files(in: directory) == [], "a failed start leaves no file behind")
    }

    @Test func aFileThatIsNotADatabaseIsNamedAndLeftAsItWas() throws {
        let directory = try emptyDirectory()
        let file = directory.appendingPathComponent("notdb.txt")
        try "my notes\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try LivestateProcess.run(["--port", "0", "--data", "notdb.txt"], directory: directory)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            lines(result.stderr) == [
                "livestate: cannot start: cannot use notdb.txt: file is not a database (SQLite result code 26)"
            ])
        #expect(try String(contentsOf: file, encoding: .utf8) == "my notes\n")
        #expect(try files(in: directory) == ["notdb.txt"])
    }

    @Test func aDataFileInAMissingFolderIsNamed() throws {
        let directory = try emptyDirectory()
        let result = try LivestateProcess.run(
            ["--port", "0", "--data", "no/such/folder/todos.sqlite"], directory: directory)
        #expect(result.status == 1)
        let output = lines(result.stderr)
        #expect(output.count == 1, "\(result.stderr)")
        #expect(output.first?.hasPrefix("livestate: cannot start: cannot open no/such/folder/todos.sqlite: ") == true)
        #expect(try files(in: directory) == [])
    }

    @Test func aCAFileWithoutCertificatesIsNamedInOneLine() throws {
        let directory = try emptyDirectory()
        try "not a certificate\n".write(
            to: directory.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        let result = try LivestateProcess.run(["--port", "0", "--ca-file", "ca.pem"], directory: directory)
        #expect(result.status == 1)
        let output = lines(result.stderr)
        #expect(output.count == 1, "\(result.stderr)")
        #expect(
            output.first?.hasPrefix("livestate: cannot start: cannot load the certificate authorities of ca.pem: ")
                == true, "\(result.stderr)")
        #expect(try files(in: directory) == ["ca.pem"], "a failed start leaves no file behind")
    }

    @Test func aServerWithoutItsPublicFolderSaysSoOnlyOnceItServes() throws {
        let directory = try emptyDirectory()
        let server = try LivestateProcess(["--port", "0", "--data", ":memory:"], directory: directory)
        try server.waitForListening()
        // The line comes after the server answers: a warning about a running server, not a failed start.
        #expect(
            eventually(timeout: 5) {
                server.stderr.contains("no static files (no page at /): ./public is not a directory")
            }
        )
        #expect(try RawHTTPClient.request(port: server.port, "GET", "/healthz").status == 200)
    }

    @Test func healthcheckSaysWhyItFailed() throws {
        let server = try LivestateProcess.serve()
        let port = server.port
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        let down = try LivestateProcess.run(["healthcheck", "--port", String(port)])
        #expect(down.status == 1)
        #expect(down.stdout.isEmpty)
        #expect(
            lines(down.stderr) == [
                "livestate healthcheck: nothing is listening on 127.0.0.1:\(port) (Connection refused)"
            ])
        let unknown = try LivestateProcess.run(["healthcheck", "--host", "no-such-host.invalid"])
        #expect(unknown.status == 1)
        #expect(lines(unknown.stderr).count == 1)
        #expect(unknown.stderr.hasPrefix("livestate healthcheck: cannot resolve no-such-host.invalid"))
    }
}
