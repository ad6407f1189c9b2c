import Testing

@testable import HTTP

/// The byte-level head check that runs before evhttp parses a head.
@Suite struct RawRequestCheckTests {
    private func verdict(_ text: String, split: Int? = nil) -> RawRequestCheck.Verdict {
        var check = RawRequestCheck()
        let bytes = Array(text.utf8)
        guard let split else { return check.feed(bytes) }
        check.feed(bytes[..<split])
        return check.feed(bytes[split...])
    }

    private func reason(_ text: String) -> String? {
        if case .invalid(let reason) = verdict(text) { return reason }
        return nil
    }

    @Test func soundHeadIsCompleteWithItsDeclaredFraming() throws {
        let text = "POST /todos HTTP/1.1\r\nHost: x\r\ncontent-length:  27 \r\n\r\n{\"title\":\"...\"}"
        for split in [nil, 1, 20, 30, 45] {
            guard case .complete(let head) = verdict(text, split: split) else {
                Issue.record("not complete when split at \(String(describing: split))")
                continue
            }
            #expect(head.length == text.utf8.count - 15)
            #expect(head.method == "POST")
            #expect(head.isHTTP11)
            #expect(head.contentLength == 27)
            #expect(!head.chunked)
        }
    }

    /// The method comes back as sent whatever its length (the usual ones are kept packed, longer ones as
    /// bytes) and wherever the bytes are split; `isHEAD` is exactly `HEAD`.
    @Test(arguments: ["GET", "HEAD", "OPTIONS", "PROPFIND", "MKCALENDAR", "BASELINE-CONTROL", "HEADX", "HEA"])
    func methodIsKeptAsSent(method: String) {
        let text = "\(method) /todos HTTP/1.1\r\nHost: x\r\n\r\n"
        for split in [nil, 1, 3, 4, 8, 9, method.utf8.count + 3] {
            var check = RawRequestCheck()
            let bytes = Array(text.utf8)
            if let split { check.feed(bytes[..<split]) }
            guard case .complete(let head) = check.feed(bytes[(split ?? 0)...]) else {
                Issue.record("\(method) not complete when split at \(String(describing: split))")
                continue
            }
            #expect(head.method == method)
            #expect(check.isHEAD == (method == "HEAD"))
        }
    }

    @Test func versionIsHTTPDigitDotDigit() {
        let isHTTP11 = { (version: String) -> Bool? in
            guard case .complete(let head) = self.verdict("GET / \(version)\r\nHost: x\r\n\r\n") else { return nil }
            return head.isHTTP11
        }
        #expect(isHTTP11("HTTP/1.1") == true)
        #expect(isHTTP11("HTTP/1.9") == true)
        #expect(isHTTP11("HTTP/1.0") == false)
        #expect(isHTTP11("HTTP/2.0") == false)
        for bad in ["HTTP/1.10", "HTTP/1", "HTTP/11", "HTTP 1.1", "http/1.1", "HTTP/a.1", "HTTP/1,1", "XHTTP/1.1"] {
            #expect(isHTTP11(bad) == nil, "\(bad) was taken")
        }
    }

    @Test func chunkedAloneIsChunkedAndBareLineFeedsEndLines() {
        guard case .complete(let head) = verdict("PUT / HTTP/1.0\nTransfer-Encoding: Chunked\n\n") else {
            Issue.record("not complete")
            return
        }
        #expect(head.chunked)
        #expect(!head.isHTTP11)
        #expect(head.transferEncodings == ["Chunked"])
    }

    @Test func incompleteHeadWaits() {
        #expect(verdict("GET /todos HTTP/1.1\r\nHost: x\r\n") == .incomplete)
    }

    @Test(arguments: [
        "GET /to\0dos HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length : 3\r\n\r\n", "GET / HTTP/1.1\r\nContent Length: 3\r\n\r\n",
        "GET / HTTP/1.1\r\n: empty\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET /to dos HTTP/1.1\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1 \r\n\r\n", "GET /\u{7f} HTTP/1.1\r\n\r\n", "GET /\u{ff} HTTP/1.1\r\n\r\n",
        "GE(T / HTTP/1.1\r\n\r\n", "GET / HTTP/1.x\r\n\r\n", "GET / HTTX/1.1\r\n\r\n", "\r\n", "GET /\r\n\r\n",
        "GET / HTTP/1.1\r\nX: \u{1}\r\n\r\n",
    ])
    func refusesWhatRFC9112Forbids(_ text: String) {
        #expect(reason(text) != nil, "accepted \(text.debugDescription)")
    }

    @Test func allowsObsTextAndTabsInValues() {
        guard case .complete = verdict("GET / HTTP/1.1\r\nX-Utf8: caf\u{e9}\t!\r\nHost: x\r\n\r\n") else {
            Issue.record("refused obs-text")
            return
        }
    }

    @Test func bytesAfterTheHeadChangeNothing() {
        var check = RawRequestCheck()
        let first = check.feed(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(check.feed(Array("\0\0 garbage".utf8)) == first)
    }

    @Test func stopsCheckingPastTheLimit() {
        var check = RawRequestCheck(limit: 32)
        #expect(check.feed(Array(("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 64)).utf8)) == .incomplete)
        #expect(check.feed(Array("\0\r\n\r\n".utf8)) == .incomplete)
    }

    /// Heads whose target and plain values the check passes over in runs (`skipPlainBytes`): cut anywhere,
    /// fed in two parts, each gives the verdict of the whole, reason included.
    @Test(arguments: [
        "GET /todos?_page=2&q=caf%C3%A9 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: */*\r\n\r\n",
        "POST /todos HTTP/1.1\r\nUser-Agent: a b\tc\r\nContent-Length: 12\r\n\r\n",
        "GET /to\u{7f}dos HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nX: long value\rb\r\n\r\n",
        "GET / HTTP/1.1\r\nX: long value\u{1}\r\n\r\n", "GET /a\rb HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nX: caf\u{e9} ok\r\n folded\r\n\r\n",
    ])
    func everyCutGivesTheVerdictOfTheWholeHead(_ text: String) {
        let whole = verdict(text)
        for split in 0...text.utf8.count {
            #expect(verdict(text, split: split) == whole, "cut at \(split) of \(text.debugDescription)")
        }
    }

    @Test func theLimitCountsSkippedBytes() {
        var check = RawRequestCheck(limit: 32)
        #expect(
            check.feed(Array(("GET /" + String(repeating: "a", count: 64) + " HTTP/1.1\r\n\r\n").utf8)) == .incomplete)
    }
}
