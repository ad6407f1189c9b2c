package import Foundation

/// `integration/fake_upstream.py` on loopback, port 0: the one test double of the pipeline tests (the outside edge).
///
/// `FakeUpstream(tls: "expired")` serves https with a certificate of that kind (`integration/tls_certificates.py`:
/// `valid`, `wrongname`, `selfsigned`, `expired`), made at start in a temporary folder with the test authority
/// `caFile` that a client should trust.
package final class FakeUpstream: @unchecked Sendable {
    // NB: @unchecked because the process and pipe are only touched in init and deinit.

    /// `http://127.0.0.1:PORT` (`https://` with `tls`).
    package let baseURL: URL
    /// The test authority's PEM file (with `tls`), removed with the upstream.
    package let caFile: String?
    /// Where `/_control` is served: `baseURL`, or a plain-http port beside an https upstream.
    private let controlPort: Int
    private let folder: URL?
    private let process: Process
    private let input: Pipe

    package init(tls mode: String? = nil) throws {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", root.appendingPathComponent("integration/fake_upstream.py").path, "--exit-with-stdin",
        ]
        if let mode {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-tls-\(UUID())")
            process.arguments! += ["--tls", mode, "--tls-dir", folder.path]
            self.folder = folder
            caFile = folder.appendingPathComponent("ca.pem").path
        } else {
            folder = nil
            caFile = nil
        }
        let output = Pipe()
        process.standardOutput = output
        // NB: the upstream exits when this pipe closes, so a crashed test run leaves no process behind.
        let input = Pipe()
        process.standardInput = input
        self.input = input
        try process.run()
        self.process = process
        // The first line is `listening on http://127.0.0.1:PORT`; with TLS the next is `control on http://…`.
        baseURL = try Self.url(after: "listening on", in: output)
        controlPort = mode == nil ? baseURL.port ?? 80 : try Self.url(after: "control on", in: output).port ?? 80
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        // NB: bounded, not `waitUntilExit`: on Linux that waits on a run loop for a termination Foundation may
        // not report (a run of the parallel suite hung at the end of a test using this upstream).
        if !eventually(timeout: 5, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The URL at the end of the next line of `output`, which must start with `prefix`.
    private static func url(after prefix: String, in output: Pipe) throws -> URL {
        var line = Data()
        while line.last != UInt8(ascii: "\n") {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { throw FakeUpstreamError.noPort }
            line += byte
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix(prefix), let url = text.split(separator: " ").last.flatMap({ URL(string: String($0)) })
        else { throw FakeUpstreamError.noPort }
        return url
    }

    /// The URL of `path` (with its behaviour prefixes, e.g. `/slow/2/images/ff0000.png`).
    package func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path)!
    }

    /// The paths whose connections the client closed before the answer.
    package func closedEarly() throws -> [String] {
        try log()["closed_early"] ?? []
    }

    /// The paths requested so far.
    package func requests() throws -> [String] {
        try log()["requests"] ?? []
    }

    /// Sets the behaviour of `path` (`ok`, `slow`, `hang`, `500`, `badjson`, `notimage`); `count` sets how many
    /// posts `/posts` lists.
    package func set(_ path: String, mode: String, seconds: Double? = nil, count: Int? = nil) throws {
        var spec: [String: Any] = ["path": path, "mode": mode]
        if let seconds { spec["seconds"] = seconds }
        if let count { spec["count"] = count }
        _ = try fetch("/_control", body: JSONSerialization.data(withJSONObject: spec))
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` seconds pass.
    package func wait(timeout: Double, for condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    private func log() throws -> [String: [String]] {
        let data = try fetch("/_control/log")
        return try JSONDecoder().decode([String: [String]].self, from: data)
    }

    /// A blocking loopback exchange for control calls (test thread only, never on a loop).
    private func fetch(_ path: String, body: Data? = nil) throws -> Data {
        let response = try RawHTTPClient.request(
            port: controlPort, body == nil ? "GET" : "POST", path,
            headers: [("Content-Type", "application/json")],
            body: Array(body ?? Data()))
        guard response.status == 200 else { throw FakeUpstreamError.badAnswer }
        return Data(response.body)
    }

    /// A loopback port that nothing listens on (bound to port 0, read back, closed).
    package static func unusedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw FakeUpstreamError.noPort }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

package enum FakeUpstreamError: Error {
    case noPort
    case badAnswer
}
