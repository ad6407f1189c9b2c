import Foundation
import TestSupport
import Testing

/// The buffered request log of the built binary: one line per request, none lost on SIGTERM.
@Suite(.serialized) struct RequestLogBinaryTests {
    @Test func everyRequestHasItsLineAfterSIGTERM() throws {
        let server = try LivestateProcess.serve(environment: ["LOG_LEVEL": "info"])
        let client = try RawHTTPClient(port: server.port)
        let count = 500
        for index in 0..<count {
            try client.sendRequest("GET", "/healthz?n=\(index)")
            #expect(try client.readResponse().status == 200)
        }
        // At once after the last answer: the lines are still in the buffer (flushed every 50 ms).
        server.signal(SIGTERM)
        #expect(server.waitForExit(timeout: 15) == 0)  // generous: a loaded CI machine is slow to stop
        let lines = server.stderr.split(separator: "\n").filter { $0.contains(" info GET /healthz 200 ") }
        #expect(lines.count == count)
        #expect(server.stderr.split(separator: "\n").last?.hasSuffix("info stopped") == true)
    }

    @Test func everyLoopsLinesSurviveSIGTERM() throws {
        // Each loop buffers its own lines: connections spread over three loops, then SIGTERM at once.
        let server = try LivestateProcess.serve(["--threads", "3"], environment: ["LOG_LEVEL": "info"])
        let clients = try (0..<6).map { _ in try RawHTTPClient(port: server.port) }
        let rounds = 100
        for index in 0..<rounds {
            for (number, client) in clients.enumerated() {
                try client.sendRequest("GET", "/missing/\(number)?n=\(index)")
            }
            for client in clients { #expect(try client.readResponse().status == 404) }
        }
        server.signal(SIGTERM)
        #expect(server.waitForExit(timeout: 15) == 0)  // generous: a loaded CI machine is slow to stop
        let lines = server.stderr.split(separator: "\n")
        for number in clients.indices {
            #expect(lines.filter { $0.contains(" info GET /missing/\(number) 404 ") }.count == rounds)
        }
        #expect(lines.last?.hasSuffix("info stopped") == true)
    }

    @Test func linesAppearWhileTheServerRuns() throws {
        let server = try LivestateProcess.serve(environment: ["LOG_LEVEL": "info"])
        #expect(try RawHTTPClient.request(port: server.port, "GET", "/healthz").status == 200)
        #expect(eventually(timeout: 2) { server.stderr.contains(" info GET /healthz 200 ") })
    }
}
