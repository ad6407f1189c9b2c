import Deflate
import Testing

@Suite struct ZlibTests {
    /// Rows of a two-colour image, as a PNG holds them: long runs of the same byte.
    private static let scanlines = (0..<150).flatMap { row in
        [0] + [UInt8](repeating: row % 40 == 0 ? 0xFF : 0, count: 19)
    }

    @Test func roundTripsImageRows() throws {
        let stream = try #require(Zlib.compress(Self.scanlines))
        #expect(try Zlib.decompress(stream, limit: Self.scanlines.count) == Self.scanlines)
        #expect(stream.count * 10 < Self.scanlines.count)
    }

    @Test func writesAStreamOthersCanRead() throws {
        let stream = try #require(Zlib.compress(Array("hello, zlib".utf8)))
        // RFC 1950: CMF 0x78 (deflate, 32 KiB window), and the header is a multiple of 31.
        #expect(stream[0] == 0x78 && (Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0)
        let read = try piped(
            stream, through: "/usr/bin/python3",
            ["-c", "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))"])
        #expect(String(decoding: read, as: UTF8.self) == "hello, zlib")
    }

    @Test func refusesAGzipMemberAndOutputOverTheLimit() throws {
        let member = try #require(Gzip.compress(Self.scanlines))
        #expect(throws: GzipError.malformed) { try Zlib.decompress(member, limit: 1 << 16) }
        let stream = try #require(Zlib.compress(Self.scanlines))
        #expect(throws: GzipError.tooLarge(limit: 100)) { try Zlib.decompress(stream, limit: 100) }
    }
}
