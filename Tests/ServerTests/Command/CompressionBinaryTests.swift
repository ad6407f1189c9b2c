import Foundation
import TestSupport
import Testing

/// gzip as a real client sees it: curl `--compressed` against the built binary.
@Suite(.serialized) struct CompressionBinaryTests {
    /// Runs curl with `arguments`; its stdout.
    private func curl(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--fail"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return data
    }

    @Test func curlCompressedGetsTheAlbumsGzippedAndDecodesTheIdentityBytes() throws {
        let server = try LivestateProcess.serve()
        let url = "http://127.0.0.1:\(server.port)/albums"
        let identity = try curl([url])
        #expect(identity.count > 700_000)
        // --compressed sends Accept-Encoding and decodes; -w reports the bytes that crossed the wire.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let headers = directory.appendingPathComponent("headers").path
        let body = directory.appendingPathComponent("body").path
        let wire = try curl(["--compressed", "-D", headers, "-o", body, "-w", "%{size_download}", url])
        #expect(try Data(contentsOf: URL(fileURLWithPath: body)) == identity)
        let sent = Int(String(decoding: wire, as: UTF8.self)) ?? 0
        #expect(sent > 0 && sent * 5 < identity.count, "gzip on the wire: \(sent) B")
        let head = try String(contentsOfFile: headers, encoding: .utf8).lowercased()
        #expect(head.contains("content-encoding: gzip"))
        #expect(head.contains("vary: accept-encoding"))
        #expect(head.contains("etag: \""))

        // Without Accept-Encoding: identity, and still the Vary.
        let plain = try RawHTTPClient.request(port: server.port, "GET", "/albums")
        #expect(plain.header("Content-Encoding") == nil)
        #expect(plain.header("Vary") == "Accept-Encoding")
        #expect(plain.body.count == identity.count)
        // HEAD: GET's headers, the gzip length.
        let head2 = try RawHTTPClient.request(
            port: server.port, "HEAD", "/albums", headers: [("Accept-Encoding", "gzip")])
        #expect(head2.header("Content-Encoding") == "gzip")
        #expect(head2.header("Content-Length") == String(sent))
    }
}
