import Foundation
import TestSupport
import Testing

@testable import LibEvent

/// https through libevent's OpenSSL bufferevents, against fake upstreams on loopback whose certificates and
/// test authority are made at start (`integration/tls_certificates.py`).
@Suite(.serialized) final class HTTPClientTLSTests {
    let loop: EventLoop

    init() throws {
        loop = try EventLoop(name: "tls-client-test")
        loop.run()
    }

    deinit {
        loop.stop()
    }

    /// A client that trusts only `upstream`'s test authority.
    private func client(trusting upstream: FakeUpstream, maxResponseSize: Int = 16 << 20) throws -> HTTPClient {
        let tls = try TLSClientContext(trust: .file(try #require(upstream.caFile)))
        return HTTPClient(loop: loop, timeout: 20, maxResponseSize: maxResponseSize, tls: tls)
    }

    private func get(_ client: HTTPClient, _ url: String) async -> Result<HTTPClient.Output, HTTPClient.Failure> {
        await withCheckedContinuation { continuation in
            client.get(URL(string: url)!) { result in continuation.resume(returning: result) }
        }
    }

    @Test func aValidChainAndNameIsFetchedByNameAndByAddress() async throws {
        let upstream = try FakeUpstream(tls: "valid")
        let client = try client(trusting: upstream)
        let port = try #require(upstream.baseURL.port)
        for host in ["localhost", "127.0.0.1"] {
            let output = try await get(client, "https://\(host):\(port)/posts").get()
            #expect(output.response.statusCode == 200)
            let posts = try JSONSerialization.jsonObject(with: output.data) as? [[String: Any]]
            #expect(posts?.count == 3, "https://\(host)")
        }
    }

    @Test func redirectsAreFollowedOverTLS() async throws {
        let upstream = try FakeUpstream(tls: "valid")
        let output = try await get(try client(trusting: upstream), upstream.url("/redirect/2/posts").absoluteString)
            .get()
        #expect(output.response.statusCode == 200)
        #expect(output.response.url.absoluteString == upstream.url("/posts").absoluteString)
    }

    @Test(arguments: [
        ("wrongname", "it is for another host name"),
        ("selfsigned", "it is self-signed"),
        ("expired", "it has expired"),
    ])
    func anUntrustedCertificateIsRefusedWithItsReason(mode: String, detail: String) async throws {
        let upstream = try FakeUpstream(tls: mode)
        let result = await get(try client(trusting: upstream), upstream.url("/posts").absoluteString)
        #expect(throws: HTTPClient.Failure.untrustedCertificate(host: "127.0.0.1", detail: detail)) {
            try result.get()
        }
        if case .failure(let failure) = result {
            #expect(failure.description == "the certificate of 127.0.0.1 is not trusted (\(detail))")
        }
        #expect(try upstream.requests().isEmpty, "no request reached a server that was not trusted")
    }

    @Test func theSystemStoreDoesNotTrustTheTestAuthority() async throws {
        let upstream = try FakeUpstream(tls: "valid")
        let client = HTTPClient(loop: loop, timeout: 20)
        let result = await get(client, upstream.url("/posts").absoluteString)
        #expect(
            throws: HTTPClient.Failure.untrustedCertificate(host: "127.0.0.1", detail: "no trusted authority issued it")
        ) {
            try result.get()
        }
    }

    @Test func aMissingAuthorityFileIsRefusedWithItsPath() {
        #expect {
            _ = try TLSClientContext(trust: .file("/nonexistent/ca.pem"))
        } throws: { error in
            (error as? TLSClientContext.SetupError)?.description.contains("/nonexistent/ca.pem") == true
        }
    }

    @Test(arguments: ["/stream/64/zeros", "/big/64/zeros"])
    func theSizeCapStopsTheBodyAndClosesTheConnection(path: String) async throws {
        let upstream = try FakeUpstream(tls: "valid")
        let client = try client(trusting: upstream, maxResponseSize: 1 << 20)
        let result = await get(client, upstream.url(path).absoluteString)
        #expect(throws: HTTPClient.Failure.tooLarge(limit: 1 << 20)) { try result.get() }
        #expect(HTTPClient.Failure.tooLarge(limit: 16 << 20).description == "the download is larger than 16 MiB")
        // The upstream could not write its 64 MiB: the client closed the connection instead of reading on.
        #expect(try upstream.wait(timeout: 10) { try upstream.closedEarly().contains(path) })
    }

    @Test func cancellingClosesTheTLSConnection() throws {
        let upstream = try FakeUpstream(tls: "valid")
        let completed = TickCounter()
        let task = try client(trusting: upstream).get(upstream.url("/slow/30/images/ff0000.png")) { _ in
            completed.tick()
        }
        #expect(try upstream.wait(timeout: 10) { try upstream.requests().contains("/slow/30/images/ff0000.png") })
        task.cancel()
        #expect(try upstream.wait(timeout: 10) { try upstream.closedEarly().contains("/slow/30/images/ff0000.png") })
        Thread.sleep(forTimeInterval: 0.1)
        #expect(completed.count == 0)
    }

    @Test func aPlainHTTPServerIsNotSpokenToAsHTTPS() async throws {
        let plain = try FakeUpstream()
        let port = try #require(plain.baseURL.port)
        let result = await get(HTTPClient(loop: loop, timeout: 20), "https://127.0.0.1:\(port)/posts")
        guard case .failure(.secureConnectionFailed(let host, let detail)) = result else {
            Issue.record("expected a failed handshake, got \(result)")
            return
        }
        #expect(host == "127.0.0.1")
        #expect(!detail.isEmpty)
    }
}
