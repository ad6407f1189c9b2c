import Foundation
import TestSupport
import Testing

@testable import HTTP
@testable import LibEvent

/// The evhttp edge in-process: a test router behind a real listener, spoken to over loopback.
@Suite struct HTTPListenerTests {
    private struct Note: Codable {
        var title: String
    }

    @Test func laterRepliesSentFromAnotherThreadArrive() throws {
        var router = Router()
        router.get("/slow") { _ in
            .later { respond in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                    respond(Response(status: 202, body: Array("done".utf8)))
                }
            }
        }
        let server = try TestListener(router)
        let response = try RawHTTPClient.request(port: server.port, "GET", "/slow")
        #expect(response.status == 202)
        #expect(response.text == "done")
    }

    @Test func jsonBodiesAreDecodedWith415And400OverTheWire() throws {
        var router = Router()
        router.post("/notes") { request in
            try .json(Note(title: request.jsonBody(fields: ["title"]).required("title")), status: 201)
        }
        let server = try TestListener(router)
        let json = [("Content-Type", "application/json")]
        let created = try RawHTTPClient.request(
            port: server.port, "POST", "/notes", headers: json, body: Array(#"{"title":"Walk"}"#.utf8))
        #expect(created.status == 201)
        #expect(created.text == #"{"title":"Walk"}"#)
        let text = try RawHTTPClient.request(
            port: server.port, "POST", "/notes", headers: [("Content-Type", "text/plain")], body: Array("hi".utf8))
        #expect(text.status == 415)
        #expect(text.errorCode == "unsupported_media_type")
        let malformed = try RawHTTPClient.request(
            port: server.port, "POST", "/notes", headers: json, body: Array(#"{"title":"#.utf8))
        #expect(malformed.status == 400)
        #expect(malformed.errorCode == "invalid_json")
        let wrongType = try RawHTTPClient.request(
            port: server.port, "POST", "/notes", headers: json, body: Array(#"{"title":5}"#.utf8))
        #expect(wrongType.status == 400)
        #expect(wrongType.text.contains("title"))
    }

    @Test func headAnswersWithTheLengthAndNoBody() throws {
        var router = Router()
        router.get("/doc") { _ in .response(.json(encoded: Array(#"{"a":1}"#.utf8))) }
        let server = try TestListener(router)
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("HEAD", "/doc")
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "7")
        // The next response on the same connection starts right away: no body was sent for HEAD.
        try client.sendRequest("GET", "/doc")
        #expect(try client.readResponse().text == #"{"a":1}"#)
    }

    @Test func largeBodiesArriveIntactWithoutTheDelayedACKStall() throws {
        let small = (0..<23_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let large = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var router = Router()
        router.get("/small") { _ in .response(Response(body: small)) }
        router.get("/large") { _ in .response(Response(body: large)) }
        let server = try TestListener(router)
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/large")
        #expect(try client.readResponse().body == large)
        // With Nagle on and 16 KiB writes each 23 KB reply waits ~40 ms for the client's delayed ACK; the
        // median (not the total) keeps a busy machine's outliers from failing the test.
        var durations: [Double] = []
        for _ in 0..<21 {
            let start = Date()
            try client.sendRequest("GET", "/small")
            #expect(try client.readResponse().body == small)
            durations.append(Date().timeIntervalSince(start))
        }
        #expect(durations.sorted()[10] < 0.03)
        // Accepted sockets inherit TCP_NODELAY from the listening socket.
        var noDelay: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(server.socket.descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, &length)
        #expect(noDelay == 1)
    }

    @Test func libeventErrorPagesBecomeJSON() throws {
        let server = try TestListener(Router())
        let garbage = try RawHTTPClient(port: server.port)
        try garbage.send(Array("NOT A REQUEST\r\n\r\n".utf8))
        let bad = try garbage.readResponse()
        #expect(bad.status == 400)
        #expect(bad.header("Content-Type") == "application/json; charset=utf-8")
        #expect(bad.errorCode == "bad_request")
        let trace = try RawHTTPClient(port: server.port)
        try trace.send(Array("TRACE / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let unsupported = try trace.readResponse()
        // A method evhttp does not serve is answered from the route table, never with evhttp's 501:
        // this router has no routes, so the path is unknown.
        #expect(unsupported.status == 404)
        #expect(unsupported.errorCode == "not_found")
    }

    @Test func headersOverTheLimitAreRefused() throws {
        let server = try TestListener(Router(), limits: ListenerLimits(maxHeadersSize: 1024))
        let response = try RawHTTPClient.request(
            port: server.port, "GET", "/", headers: [("X-Big", String(repeating: "a", count: 4096))])
        #expect(response.status == 400)
    }

    @Test func streamsSendChunksUntilClosed() throws {
        let holder = LockedBox<(any HTTPStream)?>(nil)
        var router = Router()
        router.get("/stream") { _ in
            .stream(headers: ["Content-Type": "text/event-stream"]) { stream in
                // NB: kept first: the head and this chunk can reach the client before the closure returns.
                holder.value = stream
                stream.write(Array("one\n".utf8))
            }
        }
        let server = try TestListener(router)
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/stream")
        let head = try client.readResponse(head: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(head.header("Transfer-Encoding") == "chunked")
        #expect(try client.readChunk() == Array("one\n".utf8))
        let stream = try #require(holder.value)
        // From another thread: the write hops to the stream's loop.
        DispatchQueue.global().async { stream.write(Array("two\n".utf8)) }
        #expect(try client.readChunk() == Array("two\n".utf8))
        let closed = LockedBox(false)
        stream.onClose { closed.value = true }
        stream.close()
        #expect(try client.readChunk() == nil)
        #expect(eventually { closed.value })
        #expect(server.onLoop { stream.isClosed })
    }

    @Test func streamsNoticeAClientThatLeaves() throws {
        let closed = LockedBox(false)
        let started = LockedBox(false)
        var router = Router()
        router.get("/stream") { _ in
            .stream(headers: [:]) { stream in
                stream.onClose { closed.value = true }
                started.value = true
            }
        }
        let server = try TestListener(router)
        do {
            let client = try RawHTTPClient(port: server.port)
            try client.sendRequest("GET", "/stream")
            _ = try client.readResponse(head: true)
            #expect(eventually { started.value })
        }
        // The client is gone (socket closed) without the server writing anything.
        #expect(eventually { closed.value })
        #expect(server.onLoop { server.listener.openStreams } == 0)
    }

    @Test func endingStreamsAtShutdownSendsTheLastChunk() throws {
        var router = Router()
        router.get("/stream") { _ in .stream(headers: [:]) { stream in stream.write(Array("hi".utf8)) } }
        let server = try TestListener(router)
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/stream")
        _ = try client.readResponse(head: true)
        #expect(try client.readChunk() == Array("hi".utf8))
        let listener = server.listener
        server.onLoop { listener.endStreams() }
        #expect(try client.readChunk() == nil)
    }

    /// A server whose `/stream` keeps its stream open, a client that asked for it, and that stream.
    private func openStream() throws -> (server: TestListener, client: RawHTTPClient, stream: any HTTPStream) {
        let holder = LockedBox<(any HTTPStream)?>(nil)
        var router = Router()
        router.get("/stream") { _ in .stream(headers: [:]) { stream in holder.value = stream } }
        let server = try TestListener(router)
        let client = try RawHTTPClient(port: server.port)
        try client.sendRequest("GET", "/stream")
        #expect(eventually { holder.value != nil })
        return (server, client, try #require(holder.value))
    }

    @Test func pendingBytesGrowForAClientThatDoesNotRead() throws {
        let (server, client, stream) = try openStream()
        let chunk = [UInt8](repeating: 65, count: 64 << 10)
        let pending = server.onLoop {
            for _ in 0..<160 { stream.write(chunk) }
            return stream.pendingBytes
        }
        // 10 MiB written, far more than the socket buffers hold: most of it waits in user space.
        #expect(pending > 1 << 20)
        withExtendedLifetime(client) {}
    }

    /// A stream cut off (`abort`, a reset) in the turn that started it, after writing more than the socket
    /// takes (a live query's first result for a client over its cap), still gave the client its head: the
    /// head left for the socket when the stream started, not behind the stream's output at the loop's next
    /// turn, where the reset discarded it with the rest.
    @Test func aStreamCutOffInTheTurnThatStartedItStillSentItsHead() throws {
        var router = Router()
        router.get("/stream") { _ in
            .stream(headers: ["Content-Type": "text/event-stream"]) { stream in
                let chunk = SharedBytes([UInt8](repeating: 65, count: 64 << 10))
                for _ in 0..<64 { stream.write([chunk]) }
                stream.abort()
            }
        }
        let server = try TestListener(router)
        for _ in 0..<5 {
            let client = try RawHTTPClient(port: server.port)
            try client.sendRequest("GET", "/stream")
            let head = try client.readResponse(head: true)
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream")
        }
    }

    /// Chunks go straight to the socket while it takes them, and through libevent once it is full; either
    /// way each arrives whole, framed, in order, of any size.
    @Test func chunksArriveWholeWhetherTheSocketTakesThemOrNot() throws {
        let (server, client, stream) = try openStream()
        _ = try client.readResponse(head: true)
        let sizes = [1, 15, 16, 4095, 70_001] + Array(repeating: 65_536, count: 100) + [3, 1 << 20]
        let chunks = sizes.enumerated().map { index, size in [UInt8](repeating: UInt8(index % 251), count: size) }
        // All written before the client reads: the socket's buffers fill up part way.
        server.onLoop { for chunk in chunks { stream.write([SharedBytes(chunk)]) } }
        for chunk in chunks { #expect(try client.readChunk() == chunk) }
        stream.close()
        #expect(try client.readChunk() == nil)
    }
}
