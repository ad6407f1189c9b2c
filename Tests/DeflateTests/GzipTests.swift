import Deflate
import Foundation
import Testing

@Suite struct GzipTests {
    /// A JSON list like the ones LiveState serves: repetitive, so it compresses well.
    private static let albums = Array(
        (1...2000).map { #"{"albumId":\#($0 / 50 + 1),"id":\#($0),"title":"accusamus beatae ad"}"# }
            .joined(separator: ",").utf8)

    @Test func roundTripsAJSONBody() throws {
        let packed = try #require(Gzip.compress(Self.albums))
        #expect(try Gzip.decompress(packed, limit: 1 << 20) == Self.albums)
    }

    @Test func aRepetitiveListShrinksToASmallFraction() throws {
        let packed = try #require(Gzip.compress(Self.albums))
        #expect(packed.count * 10 < Self.albums.count)
    }

    @Test func writesAGzipMemberOthersCanRead() throws {
        let packed = try #require(Gzip.compress(Array("hello, gzip".utf8)))
        // RFC 1952: ID1 ID2 CM=8 (deflate).
        #expect(Array(packed.prefix(3)) == [0x1f, 0x8b, 0x08])
        let text = try piped(packed, through: "/bin/gzip", ["-dc"])
        #expect(String(decoding: text, as: UTF8.self) == "hello, gzip")
    }

    @Test func anEmptyBodyIsAValidMember() throws {
        let packed = try #require(Gzip.compress([]))
        #expect(try Gzip.decompress(packed, limit: 16).isEmpty)
    }

    @Test func refusesOutputOverTheLimit() throws {
        let packed = try #require(Gzip.compress(Self.albums))
        #expect(throws: GzipError.tooLarge(limit: 1000)) { try Gzip.decompress(packed, limit: 1000) }
    }

    @Test func refusesBytesThatAreNotGzip() {
        #expect(throws: GzipError.malformed) { try Gzip.decompress(Array("not gzip at all".utf8), limit: 1 << 10) }
        var truncated = Gzip.compress(Self.albums) ?? []
        truncated.removeLast(9)
        #expect(throws: GzipError.malformed) { try Gzip.decompress(truncated, limit: 1 << 20) }
    }
}

/// What the program at `path` writes for `bytes` on its standard input: an independent reader of our output.
func piped(_ bytes: [UInt8], through path: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(bytes))
    try input.fileHandleForWriting.close()
    let text = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return text
}
