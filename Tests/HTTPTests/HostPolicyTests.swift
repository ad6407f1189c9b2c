import Testing

@testable import HTTP

/// The Host check against DNS rebinding: loopback names and the allowed ones pass, nothing else.
@Suite struct HostPolicyTests {
    @Test(arguments: [
        "localhost", "LOCALHOST:8080", "localhost.:80", "127.0.0.1", "127.0.0.1:8080", "127.1.2.3:1", "[::1]",
        "[::1]:8080",
    ])
    func loopbackNamesPass(host: String) {
        #expect(HostPolicy().accepts(host))
    }

    @Test(arguments: [
        "evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example", "128.0.0.1",
        "0.0.0.0:8080", "[::2]:8080", "192.168.1.10:8080", "", "127.0.0.256",
    ])
    func otherNamesAreRefused(host: String) {
        #expect(!HostPolicy().accepts(host))
    }

    @Test func allowedNamesPassOnAnyPortAndCase() throws {
        let policy = try #require(HostPolicy(parsing: "dev.example, Box.Local"))
        #expect(policy.accepts("dev.example:8080"))
        #expect(policy.accepts("box.local"))
        #expect(policy.accepts("localhost:1"))
        #expect(!policy.accepts("other.example"))
    }

    @Test func aRequestWithoutHostPasses() {
        #expect(HostPolicy().accepts(nil))
    }

    @Test(arguments: ["127.0.0.1", "localhost", "::1", "127.0.0.53"])
    func loopbackListeningAddresses(address: String) {
        #expect(HostPolicy.isLoopback(address))
    }

    @Test(arguments: ["0.0.0.0", "::", "10.0.0.1"])
    func otherListeningAddresses(address: String) {
        #expect(!HostPolicy.isLoopback(address))
    }

    @Test(arguments: ["", " , ", "a b", "http://x", "user@x"])
    func malformedListsAreRejected(text: String) {
        #expect(HostPolicy(parsing: text) == nil)
    }

    @Test(arguments: [
        "127.0.0.1:80@evil.example", "evil.example@127.0.0.1", "localhost/x", "localhost?x", "localhost#x",
        "127.0.0.1:x", "127.0.0.1 evil", "[::1", "[::1]x", "[::1]:80:80", "local\\host",
    ])
    func malformedHostsAreRefused(host: String) {
        #expect(!HostPolicy.isWellFormed(host))
        #expect(!HostPolicy().accepts(host))
        #expect(!HostPolicy(allowedNames: ["evil.example"]).accepts(host))
    }

    @Test(arguments: ["", "localhost", "localhost:", "localhost:8080", "[::1]:80", "[fe80::1%25eth0]", "a-b.c_d~e"])
    func wellFormedHosts(host: String) {
        #expect(HostPolicy.isWellFormed(host))
    }
}
