import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTP
@testable import LibEvent

/// The libevent HTTP client against the fake upstream on loopback, on a real `EventLoop`.
@Suite(.serialized) final class PipelineHTTPClientTests {
    let upstream: FakeUpstream
    let loop: EventLoop

    init() throws {
        upstream = try FakeUpstream()
        loop = try EventLoop(name: "client-test")
        loop.run()
    }

    deinit {
        loop.stop()
    }

    private func get(_ client: HTTPClient, _ url: URL) async -> Result<HTTPClient.Output, HTTPClient.Failure> {
        await withCheckedContinuation { continuation in
            client.get(url) { result in continuation.resume(returning: result) }
        }
    }

    @Test func fetchesStatusHeadersAndBody() async throws {
        let result = await get(HTTPClient(loop: loop), upstream.url("/posts"))
        let output = try result.get()
        #expect(output.response.statusCode == 200)
        #expect(output.response.value(forHTTPHeaderField: "content-type") == "application/json; charset=utf-8")
        let posts = try JSONSerialization.jsonObject(with: output.data) as? [[String: Any]]
        #expect(posts?.count == 3)
    }

    @Test func deliversErrorStatusesAsResponses() async throws {
        let output = try await get(HTTPClient(loop: loop), upstream.url("/status/500/posts")).get()
        #expect(output.response.statusCode == 500)
    }

    @Test func resolvesNamesWithoutBlocking() async throws {
        let url = URL(string: "http://localhost:\(upstream.baseURL.port!)/posts")!
        let output = try await get(HTTPClient(loop: loop), url).get()
        #expect(output.response.statusCode == 200)
    }

    @Test func followsUpToFiveRedirects() async throws {
        let output = try await get(HTTPClient(loop: loop), upstream.url("/redirect/5/posts")).get()
        #expect(output.response.statusCode == 200)
        #expect(output.response.url.path == "/posts")
    }

    @Test func refusesASixthRedirect() async {
        let result = await get(HTTPClient(loop: loop), upstream.url("/redirect/6/posts"))
        #expect(throws: HTTPClient.Failure.tooManyRedirects) { try result.get() }
    }

    @Test func capsTheResponseSize() async {
        let client = HTTPClient(loop: loop, maxResponseSize: 1 << 20)
        let result = await get(client, upstream.url("/big/2/zeros"))
        #expect(throws: HTTPClient.Failure.tooLarge(limit: 1 << 20)) { try result.get() }
    }

    @Test func timesOutAndClosesTheConnectionWhileTheLoopKeepsRunning() async throws {
        let client = HTTPClient(loop: loop, timeout: 0.5)
        let ticks = TickCounter()
        let timer = loop.schedule(after: 0.05, repeating: 0.05) { ticks.tick() }
        let started = Date()
        let result = await get(client, upstream.url("/hang/posts"))
        timer.cancel()
        let elapsed = Date().timeIntervalSince(started)
        #expect(throws: HTTPClient.Failure.timedOut) { try result.get() }
        #expect(elapsed >= 0.45 && elapsed < 5, "timed out after \(elapsed) s")
        #expect(ticks.count >= 5, "the loop ran other work during the download")
        #expect(try upstream.wait(timeout: 10) { try upstream.closedEarly().contains("/hang/posts") })
    }

    @Test func cancellingClosesTheConnectionAndSkipsTheCompletion() throws {
        let completed = TickCounter()
        let task = HTTPClient(loop: loop).get(upstream.url("/slow/5/images/ff0000.png")) { _ in completed.tick() }
        #expect(try upstream.wait(timeout: 10) { try upstream.requests().contains("/slow/5/images/ff0000.png") })
        task.cancel()
        #expect(try upstream.wait(timeout: 10) { try upstream.closedEarly().contains("/slow/5/images/ff0000.png") })
        Thread.sleep(forTimeInterval: 0.1)
        #expect(completed.count == 0)
    }

    @Test func reportsAnUnreachableHost() async throws {
        // A port that was just free: nobody listens there.
        let port = try FakeUpstream.unusedPort()
        let result = await get(HTTPClient(loop: loop), URL(string: "http://127.0.0.1:\(port)/posts")!)
        #expect(throws: HTTPClient.Failure.cannotConnect) { try result.get() }
    }

    @Test func completesOnTheLoopForHTTPAndHTTPS() async throws {
        let client = HTTPClient(loop: loop, timeout: 5)
        let port = upstream.baseURL.port!
        for url in ["http://127.0.0.1:\(port)/posts", "https://127.0.0.1:\(port)/posts"] {
            let onLoop = await withCheckedContinuation { continuation in
                client.get(URL(string: url)!) { [loop] result in
                    // NB: a TLS handshake with a plain HTTP server fails (and says so, on the loop).
                    continuation.resume(returning: (loop.inLoop, (try? result.get()) != nil))
                }
            }
            #expect(onLoop.0, "\(url) completes on the loop")
            #expect(onLoop.1 == url.hasPrefix("http:"))
        }
    }

    @Test(arguments: ["ftp://127.0.0.1/posts", "file:///etc/passwd"])
    func refusesOtherSchemes(url: String) async {
        let result = await get(HTTPClient(loop: loop), URL(string: url)!)
        #expect(throws: HTTPClient.Failure.unsupportedURL) { try result.get() }
    }
}

/// A thread-safe counter for callbacks.
final class TickCounter: Sendable {
    private let value = Mutex(0)
    func tick() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
