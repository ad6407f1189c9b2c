import Deflate
import Domain
import Foundation
import Reactive
import TestSupport
import Testing

@testable import HTTP
@testable import Server

/// `GET /albums` and `/todos` through the whole pipeline (`HTTPService`): gzip once per change, ETag, 304.
@Suite struct CompressionRoutesTests {
    private let harness: RouteHarness
    private let service: HTTPService
    init() throws {
        harness = try RouteHarness()
        service = HTTPService(router: harness.router)
    }

    private func get(_ target: String, _ headers: HTTPHeaders = [:]) throws -> Response {
        try service.respond(to: Request(.get, target, headers: headers)).immediate()
    }

    @Test func albumsGoOutGzippedAtASmallFractionAndDecompressToTheIdentityBytes() throws {
        let identity = try get("/albums")
        #expect(identity.headers["Content-Encoding"] == nil)
        #expect(identity.headers["Vary"] == "Accept-Encoding")
        #expect(identity.body == harness.seeds.lists.albums.bytes)
        #expect(identity.body.count > 700_000)

        let packed = try get("/albums", ["Accept-Encoding": "gzip, deflate, br"])
        #expect(packed.headers["Content-Encoding"] == "gzip")
        #expect(packed.headers["Vary"] == "Accept-Encoding")
        #expect(packed.headers["X-Total-Count"] == "5000")
        #expect(packed.body.count * 5 < identity.body.count, "gzip: \(packed.body.count) B")
        #expect(try Gzip.decompress(packed.body, limit: 4 << 20) == identity.body)

        // Compressed once per change: the second gzip request gets the very same cached array.
        let again = try get("/albums", ["Accept-Encoding": "gzip"])
        packed.body.withUnsafeBufferPointer { a in
            again.body.withUnsafeBufferPointer { b in #expect(a.baseAddress == b.baseAddress) }
        }
    }

    @Test func etagChangesWithTheListAnd304WhileItDoesNot() throws {
        let first = try get("/todos")
        let tag = try #require(first.headers["ETag"])
        #expect(try get("/todos", ["If-None-Match": tag]).status == 304)
        #expect(try harness.send(.post, "/todos", json: #"{"title":"A fresh task for the tag"}"#).status == 201)
        #expect(eventually { (try? self.get("/todos").headers["ETag"]) != tag })
        let changed = try get("/todos", ["If-None-Match": tag])
        #expect(changed.status == 200)
        #expect(changed.text.contains("A fresh task for the tag"))
        #expect(changed.headers["ETag"] != tag)
    }

    @Test func itemsCarryATagToo() throws {
        let item = try get("/albums/7")
        let tag = try #require(item.headers["ETag"])
        #expect(try get("/albums/7", ["If-None-Match": tag]).status == 304)
        #expect(try get("/albums/8", ["If-None-Match": tag]).status == 200)
    }
}
