@testable import HTTP

/// The raw-request path: the bytes of a whole request, through the checks the listener runs before
/// evhttp parses anything (`RawRequestCheck`, `ChunkedBodyCheck`), then as the request evhttp would hand
/// over, through the wire rules and the routes.
///
/// Checked: the checks give the same verdict however the bytes are split (they run on each read); a head
/// they pass has none of the bytes the framing rules forbid (an independent, plain reading of the lines);
/// a chunk extension they report starts at a `;`; and the request never answers 500.
enum RawRequestFuzz {
    /// Inputs that start with an upper-case letter (a method) take this path.
    static func accepts(_ bytes: [UInt8]) -> Bool {
        bytes.first.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ?? false
    }

    static func run(_ bytes: [UInt8]) {
        let split = Int(bytes.last ?? 0) * bytes.count / 256
        var whole = RawRequestCheck()
        let verdict = whole.feed(bytes)
        var parts = RawRequestCheck()
        parts.feed(bytes[..<split])
        precondition(parts.feed(bytes[split...]) == verdict, "the head check depends on how the bytes arrive")
        guard case .complete(let head) = verdict else { return }
        let lines = soundLines(bytes[..<head.length])
        let rest = Array(bytes[head.length...])
        var body = Array(rest.prefix(head.contentLength ?? 0))
        if head.chunked {
            guard let decoded = chunkedBody(rest, split: split) else { return }
            body = decoded
        }
        guard let method = HTTPMethod(rawValue: head.method), let requestLine = lines.first else { return }
        let target = String(decoding: requestLine.split(separator: 0x20)[1], as: UTF8.self)
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            let colon = line.firstIndex(of: UInt8(ascii: ":"))!
            let value = Substring(String(decoding: line[(colon + 1)...], as: UTF8.self)).trimmingWhitespace()
            headers.add(String(decoding: line[..<colon], as: UTF8.self), value)
        }
        let request = Request(method, target, headers: headers, body: body)
        if request.wireFramingError(isHTTP11: head.isHTTP11) == nil {
            FuzzTarget.route(request, target: target)
        }
    }

    /// The head's lines without their line ends, each checked the plain way.
    private static func soundLines(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        precondition(!head.contains(0), "a NUL passed the head check")
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            line.last == 0x0D ? line.dropLast() : line
        }
        precondition(lines.suffix(2).allSatisfy(\.isEmpty), "a head that does not end with a blank line")
        lines.removeLast(2)
        for line in lines {
            precondition(!line.contains(0x0D), "a CR inside a line passed the head check")
        }
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                preconditionFailure("a header line without a colon passed the head check")
            }
            let name = line[..<colon]
            precondition(!name.isEmpty, "an empty header name passed the head check")
            precondition(!name.contains(0x20) && !name.contains(0x09), "whitespace in a name passed the head check")
        }
        return lines
    }

    /// The chunked body as evhttp would read it after the listener's rewrite, or nil when it is refused.
    private static func chunkedBody(_ rest: [UInt8], split: Int) -> [UInt8]? {
        var bytes = rest
        var check = ChunkedBodyCheck()
        let semicolons = check.feed(bytes)
        var parts = ChunkedBodyCheck()
        let cut = min(split, bytes.count)
        let inParts = parts.feed(bytes[..<cut]) + parts.feed(bytes[cut...])
        precondition(parts.verdict == check.verdict, "the chunk check depends on how the bytes arrive")
        precondition(inParts == semicolons, "the chunk extensions depend on how the bytes arrive")
        for offset in semicolons {
            precondition(bytes[offset] == UInt8(ascii: ";"), "a chunk extension that does not start at a ';'")
            bytes[offset] = 0x20
        }
        guard case .complete(let length) = check.verdict else { return nil }
        // Decode the chunks the way evhttp does (size, then data), which the check must have kept in step.
        var body: [UInt8] = []
        var index = 0
        while index < length {
            guard let end = bytes[index...].firstIndex(of: 0x0A) else { preconditionFailure("lost a chunk line") }
            let digits = bytes[index..<end].prefix { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }
            guard let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
                preconditionFailure("a chunk size the check passed is not hex")
            }
            index = end + 1
            if size == 0 { break }
            precondition(index + size <= length, "a chunk past the end the check found")
            body += bytes[index..<(index + size)]
            index += size
            index += index < length && bytes[index] == 0x0D ? 2 : 1
        }
        return body
    }
}
