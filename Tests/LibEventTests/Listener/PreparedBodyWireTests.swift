import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTP
@testable import LibEvent

/// A list snapshot's prepared answers over the wire, small and large: the client gets exactly the current
/// bytes, framed by the prepared head, whether a large body goes from its file (`FileBody`, with `sendfile`,
/// the head corked until it follows) or by reference to the shared bytes.
@Suite struct PreparedBodyWireTests {
    /// The current body of a route, replaced as a snapshot is on each change.
    private final class Current: Sendable {
        private let body: Mutex<PreparedBody>

        init(_ bytes: [UInt8]) { body = Mutex(PreparedBody(bytes)) }

        func replace(_ bytes: [UInt8]) { body.withLock { $0 = PreparedBody(bytes) } }

        var response: Response {
            let prepared = body.withLock { $0 }
            return .json(
                encoded: prepared.identity, headers: ["X-Total-Count": String(prepared.identity.count / 10)],
                prepared: prepared)
        }
    }

    /// JSON-looking bytes of `count` that gzip compresses, different for each `seed`.
    private static func body(_ count: Int, seed: Int) -> [UInt8] {
        let item = Array(#"{"id":\#(seed),"title":"an album photo","url":"/placeholder/600/92c952"},"#.utf8)
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        while bytes.count < count - 1 { bytes += item }
        return Array(bytes.prefix(count - 1)) + [UInt8(ascii: "]")]
    }

    /// How bodies may go: from files in a folder, with no folder, or with a folder that is not there.
    enum Files: CaseIterable, Sendable { case folder, none, missingFolder }

    @Test(arguments: [724_358, 1_000_000, 20_000], Files.allCases)
    func everyAnswerCarriesTheCurrentBytesWhole(size: Int, files: Files) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("livestate-bodies-\(UUID())")
        if files == .folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: folder) }
        let current = Current(Self.body(size, seed: 1))
        var router = Router()
        router.get("/list") { _ in .response(current.response) }
        let server = try TestListener(router, bodyFiles: files == .none ? nil : folder.path)
        let client = try RawHTTPClient(port: server.port)
        let gzip = [("Accept-Encoding", "gzip")]
        for seed in 1...3 {
            let expected = Self.body(size, seed: seed)
            if seed > 1 { current.replace(expected) }
            // Several answers of each encoding on one kept-alive connection, a HEAD between them: each one
            // is framed right and holds exactly the current bytes.
            for _ in 0..<3 {
                try client.sendRequest("GET", "/list")
                let plain = try client.readResponse()
                #expect(plain.status == 200)
                #expect(plain.header("Content-Length") == String(size))
                #expect(plain.body == expected)
                // Each field once, the prepared ones (written out once per change) and evhttp's own.
                #expect(plain.headers.map(\.name).sorted() == Self.fields)
                #expect(plain.header("X-Total-Count") == String(size / 10))
                #expect(plain.header("Content-Type") == Response.jsonContentType)
                #expect(plain.header("ETag") == PreparedBody(expected).etag)
                try client.sendRequest("HEAD", "/list", headers: gzip)
                let head = try client.readResponse(head: true)
                #expect(head.header("Content-Encoding") == "gzip")
                try client.sendRequest("GET", "/list", headers: gzip)
                let packed = try client.readResponse()
                #expect(packed.header("Content-Encoding") == "gzip")
                #expect(packed.header("Content-Length") == head.header("Content-Length"))
                #expect(packed.body == PreparedBody(expected).gzipped())
                #expect(packed.headers.map(\.name).sorted() == (Self.fields + ["Content-Encoding"]).sorted())
                #expect(packed.header("ETag") == PreparedBody(expected).gzipTag)
            }
            if files == .folder {
                // The current snapshot's large body (its gzip form is small) is one open file with no name;
                // the files of replaced snapshots are closed, and the folder stays empty.
                #expect(Self.openBodyFiles(in: folder.path) == (size >= FileBody.minimumSize ? 1 : 0))
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
            }
        }
    }

    /// How many unlinked body files in `folder` this process holds open (`/proc/self/fd` links read
    /// `FOLDER/livestate-body-XXXXXX (deleted)`).
    private static func openBodyFiles(in folder: String) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.count { descriptor in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            return target.map { $0.hasPrefix(folder + "/livestate-body-") && $0.hasSuffix(" (deleted)") } ?? false
        }
    }

    private static let fields = ["Content-Length", "Content-Type", "Date", "ETag", "Vary", "X-Total-Count"]

    @Test func answersDecoratedPerRequestCarryTheirOwnFields() throws {
        let current = Current(Self.body(30_000, seed: 1))
        var router = Router()
        router.get("/list") { _ in .response(current.response) }
        let server = try TestListener(router, cors: CORSPolicy(parsing: "http://a.example,http://b.example"))
        let client = try RawHTTPClient(port: server.port)
        // CORS adds its fields after the answer was prepared: each origin gets its own, never another's.
        for origin in ["http://a.example", "http://b.example", "http://a.example", "http://c.example"] {
            try client.sendRequest("GET", "/list", headers: [("Origin", origin)])
            let answer = try client.readResponse()
            #expect(answer.body == Self.body(30_000, seed: 1))
            let allowed = origin == "http://c.example" ? nil : origin
            #expect(answer.header("Access-Control-Allow-Origin") == allowed)
            #expect(answer.headers.filter { $0.name == "ETag" }.count == 1)
        }
        try client.sendRequest("GET", "/list")
        let plain = try client.readResponse()
        #expect(plain.header("Access-Control-Allow-Origin") == nil)
        // A list of origins varies by `Origin`, asked or not.
        #expect(plain.headers.map(\.name).sorted() == (Self.fields + ["Vary"]).sorted())
    }
}
