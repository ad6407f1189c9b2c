import Deflate
import TestSupport
import Testing

@testable import HTTP

/// `Accept-Encoding` parsing and `ContentNegotiation`: gzip, `Vary`, `ETag` and `304`.
@Suite struct ContentNegotiationTests {
    @Test(
        arguments: [
            ("gzip", true), ("GZIP", true), ("x-gzip", true), ("br, gzip;q=0.8", true), ("gzip;q=1.000", true),
            ("deflate, gzip ; q=0.001", true), ("*", true), ("br, *;q=0.5", true),
            (nil, false), ("", false), ("identity", false), ("br", false), ("gzip;q=0", false), ("gzip;q=0.000", false),
            ("gzip;q=0, *", false), ("*;q=0", false), ("gzip;q=2", false), ("gzip;q=abc", false), ("gzip;q=1.5", false),
        ] as [(String?, Bool)])
    func acceptEncodingQValues(header: String?, accepts: Bool) {
        #expect(AcceptEncoding.acceptsGzip(header) == accepts)
    }

    private let big = Array(String(repeating: #"{"id":1,"title":"water the plants"},"#, count: 200).utf8)

    private func service(_ response: Response) -> HTTPService {
        var router = Router()
        router.get("/list") { _ in .response(response) }
        router.post("/list") { _ in .response(response) }
        return HTTPService(router: router)
    }

    @Test func gzipWhenAcceptedIdentityOtherwiseVaryAlways() throws {
        let service = service(.json(encoded: big, prepared: PreparedBody(big)))
        let plain = try service.respond(to: Request(.get, "/list")).immediate()
        #expect(plain.body == big)
        #expect(plain.headers["Content-Encoding"] == nil)
        #expect(plain.headers["Vary"] == "Accept-Encoding")
        let refused = try service.respond(to: Request(.get, "/list", headers: ["Accept-Encoding": "gzip;q=0"]))
            .immediate()
        #expect(refused.body == big && refused.headers["Content-Encoding"] == nil)

        let packed = try service.respond(to: Request(.get, "/list", headers: ["Accept-Encoding": "gzip, br"]))
            .immediate()
        #expect(packed.headers["Content-Encoding"] == "gzip")
        #expect(packed.headers["Vary"] == "Accept-Encoding")
        #expect(packed.body.count < big.count / 10)
        #expect(try Gzip.decompress(packed.body, limit: 1 << 20) == big)
        #expect(packed.headers["ETag"] == ContentNegotiation.gzipTag(try #require(plain.headers["ETag"])))

        // HEAD answers the headers GET would send, the body is dropped by the listener.
        let head = try service.respond(to: Request(.head, "/list", headers: ["Accept-Encoding": "gzip"])).immediate()
        #expect(head.headers == packed.headers)
        #expect(head.body.count == packed.body.count)
    }

    @Test func preparedBodyIsCompressedOnce() throws {
        let prepared = PreparedBody(big)
        let first = try #require(prepared.gzipped())
        let second = try #require(prepared.gzipped())
        // The same storage: the cached array, not a fresh compression.
        first.withUnsafeBufferPointer { a in
            second.withUnsafeBufferPointer { b in #expect(a.baseAddress == b.baseAddress) }
        }
    }

    @Test func smallBodiesAndOtherMethodsGoOutAsTheyAre() throws {
        let small = Array(#"{"status":"ok"}"#.utf8)
        let response = try service(.json(encoded: small)).respond(
            to: Request(.get, "/list", headers: ["Accept-Encoding": "gzip"])
        ).immediate()
        #expect(response.body == small && response.headers["Content-Encoding"] == nil)
        #expect(response.headers["Vary"] == "Accept-Encoding")
        #expect(response.headers["ETag"] != nil)
        let post = try service(.json(encoded: big)).respond(
            to: Request(.post, "/list", headers: ["Accept-Encoding": "gzip"])
        ).immediate()
        #expect(post.body == big && post.headers["Content-Encoding"] == nil && post.headers["ETag"] == nil)
    }

    @Test func ifNoneMatchGives304WithTheTagOfTheChosenEncoding() throws {
        let service = service(.json(encoded: big, prepared: PreparedBody(big)))
        let tag = try #require(try service.respond(to: Request(.get, "/list")).immediate().headers["ETag"])
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
        let fresh = try service.respond(to: Request(.get, "/list", headers: ["If-None-Match": tag])).immediate()
        #expect(fresh.status == 304 && fresh.body.isEmpty)
        #expect(fresh.headers["ETag"] == tag && fresh.headers["Vary"] == "Accept-Encoding")
        let gzipTag = ContentNegotiation.gzipTag(tag)
        let zipped = try service.respond(
            to: Request(.get, "/list", headers: ["If-None-Match": "\"other\", \(gzipTag)", "Accept-Encoding": "gzip"])
        ).immediate()
        #expect(zipped.status == 304 && zipped.headers["ETag"] == gzipTag)
        let stale = try service.respond(to: Request(.get, "/list", headers: ["If-None-Match": "\"other\""]))
            .immediate()
        #expect(stale.status == 200 && stale.body == big)
    }

    @Test func aChangedBodyGetsANewTag() throws {
        var other = big
        other[10] = UInt8(ascii: "2")
        let a = try service(.json(encoded: big)).respond(to: Request(.get, "/list")).immediate().headers["ETag"]
        let b = try service(.json(encoded: other)).respond(to: Request(.get, "/list")).immediate().headers["ETag"]
        #expect(a != nil && b != nil && a != b)
        #expect(a == PreparedBody(big).etag)
    }

    /// A prepared body's answers are made once per encoding and reused until the next change: the same
    /// headers and 304 every time, and a route that changes the headers gets answers of its own.
    @Test func preparedAnswersAreMadeOncePerEncodingAndFollowTheHeaders() throws {
        let prepared = PreparedBody(big)
        let response = Response.json(encoded: big, headers: ["X-Total-Count": "200"], prepared: prepared)
        let service = service(response)
        let gzip: HTTPHeaders = ["Accept-Encoding": "gzip"]
        let first = try service.respond(to: Request(.get, "/list", headers: gzip)).immediate()
        let again = try service.respond(to: Request(.get, "/list", headers: gzip)).immediate()
        #expect(first.headers == again.headers && first.body == again.body)
        #expect(first.headers.isSameStorage(as: again.headers))
        #expect(first.headers["X-Total-Count"] == "200" && first.headers["Content-Encoding"] == "gzip")
        let plain = try service.respond(to: Request(.get, "/list")).immediate()
        #expect(plain.body == big && plain.headers["ETag"] == prepared.etag)
        let tag = try #require(plain.headers["ETag"])
        let notModified = try service.respond(to: Request(.get, "/list", headers: ["If-None-Match": tag]))
            .immediate()
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.headers["ETag"] == tag)
        let stale = try service.respond(to: Request(.get, "/list", headers: ["If-None-Match": #""other""#]))
            .immediate()
        #expect(stale.status == 200)

        var changed = response
        changed.headers["Cache-Control"] = "no-store"
        let other = try self.service(changed).respond(to: Request(.get, "/list", headers: gzip)).immediate()
        #expect(other.headers["Cache-Control"] == "no-store" && other.headers["Content-Encoding"] == "gzip")
    }
}
