import Foundation
import TestSupport
import Testing

@testable import HTTP

/// The built `livestate` binary as a user runs it: flags, exit codes, signals, and the HTTP edge.
@Suite(.serialized) struct LivestateBinaryTests {
    @Test func printsTheListeningLineAndServesHealthz() throws {
        let server = try LivestateProcess.serve()
        #expect(server.listeningLine == "listening on http://127.0.0.1:\(server.port)")
        let response = try RawHTTPClient.request(port: server.port, "GET", "/healthz")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        #expect(response.text == #"{"status":"ok"}"#)
    }

    @Test func unknownRouteIs404AndWrongMethodIs405WithAllow() throws {
        let server = try LivestateProcess.serve(["--public", try StaticFolder.make().path])
        let missing = try RawHTTPClient.request(port: server.port, "GET", "/no/such/thing")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "not_found")
        let wrong = try RawHTTPClient.request(port: server.port, "DELETE", "/healthz")
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, HEAD")
        #expect(wrong.errorCode == "method_not_allowed")
    }

    @Test func bodiesOver1MiBAre413WithTheContractBody() throws {
        let server = try LivestateProcess.serve()
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) + 1)
        let response = try RawHTTPClient.request(
            port: server.port, "POST", "/healthz", headers: [("Content-Type", "application/json")], body: body)
        #expect(response.status == 413)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        #expect(response.errorCode == "payload_too_large")
        // The server is still fine afterwards.
        #expect(try RawHTTPClient.request(port: server.port, "GET", "/healthz").status == 200)
    }

    @Test func tokenGuardsMutationsButNotReads() throws {
        let server = try LivestateProcess.serve(["--token", "s3cret"])
        #expect(try RawHTTPClient.request(port: server.port, "GET", "/healthz").status == 200)
        let refused = try RawHTTPClient.request(port: server.port, "POST", "/healthz")
        #expect(refused.status == 401)
        #expect(refused.errorCode == "unauthorized")
        let wrong = try RawHTTPClient.request(
            port: server.port, "POST", "/healthz", headers: [("Authorization", "Bearer s3cre")])
        #expect(wrong.status == 401)
        // With the right token the request gets past the check (and meets the route table's 405).
        let passed = try RawHTTPClient.request(
            port: server.port, "POST", "/healthz", headers: [("Authorization", "Bearer s3cret")])
        #expect(passed.status == 405)
    }

    @Test func tokenFromTheEnvironment() throws {
        let server = try LivestateProcess.serve(environment: ["LIVESTATE_TOKEN": "abc"])
        #expect(try RawHTTPClient.request(port: server.port, "POST", "/healthz").status == 401)
    }

    @Test func corsAllowsLoopbackOriginsOnAnyPortByDefault() throws {
        let server = try LivestateProcess.serve()
        for origin in ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8000"] {
            let preflight = try RawHTTPClient.request(
                port: server.port, "OPTIONS", "/todos",
                headers: [("Origin", origin), ("Access-Control-Request-Method", "POST")])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == origin)
            let get = try RawHTTPClient.request(port: server.port, "GET", "/todos", headers: [("Origin", origin)])
            #expect(get.header("Access-Control-Allow-Origin") == origin)
            #expect(
                get.header("Access-Control-Expose-Headers")
                    == "X-Total-Count, Link, Location, ETag, Idempotency-Key, Retry-After")
        }
        let foreign = try RawHTTPClient.request(
            port: server.port, "GET", "/healthz", headers: [("Origin", "http://evil.test")])
        #expect(foreign.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func corsNoneSendsNoCORSHeaders() throws {
        let server = try LivestateProcess.serve(["--cors", "none"])
        let response = try RawHTTPClient.request(
            port: server.port, "GET", "/healthz", headers: [("Origin", "http://localhost:5173")])
        #expect(response.header("Access-Control-Allow-Origin") == nil)
        let preflight = try RawHTTPClient.request(
            port: server.port, "OPTIONS", "/healthz",
            headers: [("Origin", "http://localhost:5173"), ("Access-Control-Request-Method", "GET")])
        #expect(preflight.header("Access-Control-Allow-Origin") == nil)
    }

    /// Sends a request with its own `Host` (RawHTTPClient's helper always says 127.0.0.1).
    private func request(port: Int, _ method: String, _ path: String, host: String, body: String = "")
        throws -> RawResponse
    {
        let client = try RawHTTPClient(port: port)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        if !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        try client.send(Array((head + "\r\n" + body).utf8))
        return try client.readResponse(head: method == "HEAD")
    }

    @Test func aRebindingHostIsRefusedOnEveryMethodAndChangesNothing() throws {
        let server = try LivestateProcess.serve()
        let before = try RawHTTPClient.request(port: server.port, "GET", "/todos").text
        let attempts = [
            ("GET", "/todos", ""), ("HEAD", "/todos", ""), ("POST", "/todos", #"{"title":"rebound write"}"#),
            ("PUT", "/todos/1", #"{"title":"rebound put","completed":true}"#),
            ("PATCH", "/todos/1", #"{"completed":true}"#), ("DELETE", "/todos/1", ""), ("OPTIONS", "/todos", ""),
            ("GET", "/events?topics=todos", ""),
        ]
        for (method, path, body) in attempts {
            let refused = try request(
                port: server.port, method, path, host: "rebound.example:\(server.port)", body: body)
            #expect(refused.status == 403, "\(method) \(path)")
            if method != "HEAD" { #expect(refused.errorCode == "host_not_allowed", "\(method) \(path)") }
        }
        #expect(try RawHTTPClient.request(port: server.port, "GET", "/todos").text == before)
        let local = try request(port: server.port, "GET", "/healthz", host: "localhost:\(server.port)")
        #expect(local.status == 200)
    }

    @Test func allowedHostsAdmitsANameAndTheRestStayRefused() throws {
        let server = try LivestateProcess.serve(["--allowed-hosts", "box.example"])
        #expect(
            try request(port: server.port, "POST", "/todos", host: "box.example", body: #"{"title":"from the box"}"#)
                .status == 201)
        #expect(try request(port: server.port, "GET", "/todos", host: "other.example").status == 403)
    }

    @Test func listeningOnEveryAddressAcceptsEveryHost() throws {
        let server = try LivestateProcess.serve(["--host", "0.0.0.0"])
        #expect(try request(port: server.port, "GET", "/healthz", host: "livestate-1:8080").status == 200)
    }

    @Test func corsAnswersPreflightsForListedOrigins() throws {
        let server = try LivestateProcess.serve(["--cors", "http://app.test"])
        let preflight = try RawHTTPClient.request(
            port: server.port, "OPTIONS", "/healthz",
            headers: [("Origin", "http://app.test"), ("Access-Control-Request-Method", "GET")])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "http://app.test")
        #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD")
        let get = try RawHTTPClient.request(
            port: server.port, "GET", "/healthz", headers: [("Origin", "http://app.test")])
        #expect(get.header("Access-Control-Allow-Origin") == "http://app.test")
        #expect(
            get.header("Access-Control-Expose-Headers")
                == "X-Total-Count, Link, Location, ETag, Idempotency-Key, Retry-After")
        let other = try RawHTTPClient.request(
            port: server.port, "GET", "/healthz", headers: [("Origin", "http://other.test")])
        #expect(other.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func servesStaticFilesWithETagAnd304() throws {
        let folder = try StaticFolder.make()
        let server = try LivestateProcess.serve(["--public", folder.path])
        let index = try RawHTTPClient.request(port: server.port, "GET", "/")
        #expect(index.status == 200)
        #expect(index.header("Content-Type") == "text/html; charset=utf-8")
        #expect(index.text == StaticFolder.indexHTML)
        // The page runs only its own scripts: no inline script, no plugins, no framing.
        #expect(index.header("Content-Security-Policy")?.hasPrefix("default-src 'self';") == true)
        #expect(index.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        #expect(index.header("X-Content-Type-Options") == "nosniff")
        let etag = try #require(index.header("ETag"))
        let again = try RawHTTPClient.request(port: server.port, "GET", "/", headers: [("If-None-Match", etag)])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        let css = try RawHTTPClient.request(port: server.port, "GET", "/css/site.css")
        #expect(css.header("Content-Type") == "text/css; charset=utf-8")
        #expect(css.text == "body { color: black }\n")
        #expect(try RawHTTPClient.request(port: server.port, "GET", "/css/").status == 404)
    }

    @Test(arguments: [
        "/../secret.txt", "/%2e%2e/secret.txt", "/css/..%2f..%2fsecret.txt", "/%2E%2E%2Fsecret.txt",
        "/css/%2e%2e/%2e%2e/secret.txt", "/.hidden", "/css/.%2e/.%2e/secret.txt", "/escape/secret.txt",
        "/..%5csecret.txt", "/%00index.html",
    ])
    func pathsLeavingThePublicFolderAre404(path: String) throws {
        let folder = try StaticFolder.make()
        let server = try LivestateProcess.serve(["--public", folder.path])
        let response = try RawHTTPClient.request(port: server.port, "GET", path)
        #expect(response.status == 404, "\(path)")
        #expect(!response.text.contains("top secret"))
    }

    @Test func helpPrintsUsageAndExits0() throws {
        let result = try LivestateProcess.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage: livestate"))
        #expect(result.stdout.contains("--threads"))
    }

    @Test(arguments: [
        ["--port", "abc"], ["--port", "70000"], ["--upstream", "ftp://example.com"], ["--upstream", "not a url"],
        ["--threads", "0"], ["--heartbeat", "-1"], ["--bogus"], ["--port"], ["--cors", "example.com"],
        ["--public", "/no/such/folder"],
    ])
    func badFlagValuesExit2WithOneLine(arguments: [String]) throws {
        let result = try LivestateProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("livestate: ") == true)
    }

    @Test func badEnvironmentValueExits2AndAFlagWins() throws {
        let bad = try LivestateProcess.run([], environment: ["LIVESTATE_PORT": "eighty"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("LIVESTATE_PORT"))
        // The flag wins over the broken variable.
        let server = try LivestateProcess.serve(environment: ["LIVESTATE_PORT": "eighty"])
        #expect(try RawHTTPClient.request(port: server.port, "GET", "/healthz").status == 200)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalStopsTheServerWithStatus0Within2Seconds(signal: Int32) throws {
        let server = try LivestateProcess.serve()
        // A client in the middle of a keep-alive connection does not hold the shutdown up.
        let idle = try RawHTTPClient(port: server.port)
        try idle.sendRequest("GET", "/healthz")
        #expect(try idle.readResponse().status == 200)
        let start = Date()
        server.signal(signal)
        let status = server.waitForExit(timeout: 5)
        #expect(status == 0)
        #expect(Date().timeIntervalSince(start) < 2)
        #expect((try? RawHTTPClient(port: server.port)) == nil, "the port no longer accepts")
    }

    @Test func healthcheckExits0OnlyWhenTheServerAnswers() throws {
        let server = try LivestateProcess.serve()
        let ok = try LivestateProcess.run(["healthcheck", "--port", String(server.port)])
        #expect(ok.status == 0)
        let viaEnv = try LivestateProcess.run(["healthcheck"], environment: ["LIVESTATE_PORT": String(server.port)])
        #expect(viaEnv.status == 0)
        server.signal(SIGTERM)
        #expect(server.waitForExit() == 0)
        let down = try LivestateProcess.run(["healthcheck", "--port", String(server.port)])
        #expect(down.status == 1)
    }

    @Test func severalThreadsServeConcurrently() throws {
        let server = try LivestateProcess.serve(["--threads", "3"])
        // Many open connections at once, each answered.
        let clients = try (0..<12).map { _ in try RawHTTPClient(port: server.port) }
        for client in clients { try client.sendRequest("GET", "/healthz") }
        for client in clients { #expect(try client.readResponse().status == 200) }
    }
}

/// A temporary public folder with an index, a stylesheet, a dotfile, a secret next to it, and a symlink out.
enum StaticFolder {
    static let indexHTML = "<!doctype html><title>LiveState</title>\n"

    static func make() throws -> URL {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent(
            "livestate-static-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("public")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("css"), withIntermediateDirectories: true)
        try indexHTML.write(to: folder.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "body { color: black }\n".write(
            to: folder.appendingPathComponent("css/site.css"), atomically: true, encoding: .utf8)
        try "token=abc\n".write(to: folder.appendingPathComponent(".hidden"), atomically: true, encoding: .utf8)
        try "top secret\n".write(to: base.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("escape"), withDestinationURL: base)
        return folder
    }
}
