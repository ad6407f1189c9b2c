import Testing

@testable import HTTP

/// Chunk extensions made readable to evhttp, and chunk framing held to RFC 9112.
@Suite struct ChunkedBodyCheckTests {
    @Test func findsTheSemicolonsOfExtensionsAndTheEnd() {
        var check = ChunkedBodyCheck()
        let body = Array("2;a=b\r\n{}\r\n1;q=\"x;y\"\r\n \r\n0;last\r\nTrailer: t\r\n\r\nNEXT".utf8)
        let semicolons = check.feed(body)
        #expect(semicolons.map { body[$0] } == Array(repeating: UInt8(ascii: ";"), count: 3))
        #expect(semicolons == [1, 12, 26])
        #expect(check.verdict == .complete(length: body.count - 4))
    }

    @Test func worksByteByByte() {
        var check = ChunkedBodyCheck()
        var semicolons: [Int] = []
        for byte in Array("3;x\r\nabc\r\n0\r\n\r\n".utf8) { semicolons += check.feed([byte]) }
        #expect(semicolons == [1])
        #expect(check.verdict == .complete(length: 15))
    }

    @Test(arguments: ["0x10\r\n", "+5\r\n", " 5\r\n", "5 3\r\n", "zz\r\n", "3\r\nabcdef\r\n", "3\rx", ";a\r\n"])
    func refusesWhatEvhttpWouldReadDifferently(_ text: String) {
        var check = ChunkedBodyCheck()
        check.feed(Array(text.utf8))
        guard case .invalid = check.verdict else {
            Issue.record("accepted \(text.debugDescription)")
            return
        }
    }

    @Test func boundsAChunkSizeLine() {
        var check = ChunkedBodyCheck()
        check.feed(Array(("1;" + String(repeating: "e", count: ChunkedBodyCheck.maxLineLength)).utf8))
        guard case .invalid = check.verdict else {
            Issue.record("an endless chunk-size line was accepted")
            return
        }
    }

    @Test func isTooLargeOnceTheSizesReadPassTheMostDataTaken() {
        var check = ChunkedBodyCheck(maxData: 10)
        check.feed(Array("6\r\nabcdef\r\n4\r\nabcd\r\n".utf8))
        #expect(check.verdict == .incomplete)
        // Known at the size line, before the chunk's data arrives.
        check.feed(Array("1\r\n".utf8))
        #expect(check.verdict == .tooLarge)
        var huge = ChunkedBodyCheck(maxData: 10)
        huge.feed(Array("fffffffffffffff\r\n".utf8))
        #expect(huge.verdict == .tooLarge)
    }
}
