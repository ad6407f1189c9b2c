/// Follows a chunked request body (RFC 9112 7.1) as it arrives, so that chunk extensions are accepted.
///
/// libevent 2.1 reads a chunk-size line with `strtoll` and refuses any byte after the digits but a space
/// (http.c, `evhttp_handle_chunked_read`), so `1a;name=value` is a 400 although RFC 9112 7.1.1 says a
/// recipient ignores extensions it does not know. The listener turns the `;` that starts the extensions
/// into a space before evhttp reads the line; this check says where that byte is. It also bounds a
/// chunk-size line (evhttp reads one of any length into memory).
package struct ChunkedBodyCheck: Sendable {
    /// What the check found in the bytes fed so far.
    package enum Verdict: Equatable, Sendable {
        case incomplete
        /// The last chunk and the trailer ended after `length` bytes of body.
        case complete(length: Int)
        case invalid(String)
        /// The chunk sizes read so far add up to more than `maxData` bytes (known before that data arrives).
        case tooLarge
    }

    private enum State {
        case size, sizeSpace, sizeEnd, extensions, data(remaining: Int), dataEnd, trailer
    }

    /// Longest chunk-size line (with its extensions) accepted.
    package static let maxLineLength = 4096

    private(set) package var verdict: Verdict = .incomplete
    private var state = State.size
    private var consumed = 0
    private var lineLength = 0
    private var size = 0
    private var digits = 0
    private var trailerLineHasBytes = false
    /// The most bytes of chunk data taken, and the sum of the sizes read so far.
    private let maxData: Int
    private var dataLength = 0

    package init(maxData: Int = .max) {
        self.maxData = maxData
    }

    /// Feeds the next body bytes; returns the offsets (from the body's first byte) of the `;` bytes that
    /// start chunk extensions, for the caller to replace with a space.
    ///
    /// Strict where evhttp is loose, so that both read the same chunks: a size is hex digits only (evhttp's
    /// `strtoll` also takes `0x10`, `+5` and ` 5`), and chunk data ends exactly at its CRLF (evhttp would
    /// read the bytes after a too-long chunk as the next size).
    @discardableResult
    package mutating func feed(_ bytes: some Collection<UInt8>) -> [Int] {
        Array(bytes).withUnsafeBufferPointer { feed($0) }
    }

    /// `feed` without a copy (the listener's path, on the input buffer's own memory).
    @discardableResult
    package mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> [Int] {
        var semicolons: [Int] = []
        guard verdict == .incomplete else { return semicolons }
        for byte in bytes {
            let offset = consumed
            consumed += 1
            lineLength += 1
            switch state {
            case .size, .sizeSpace:
                if case .size = state, let digit = Self.hexValue(byte) {
                    guard digits < 15 else { return fail("a chunk size too large", semicolons) }
                    size = size * 16 + digit
                    digits += 1
                    continue
                }
                guard digits > 0 else { return fail("a chunk size that is not hex digits", semicolons) }
                switch byte {
                case 0x20, 0x09: state = .sizeSpace
                case UInt8(ascii: ";"):
                    semicolons.append(offset)
                    state = .extensions
                case 0x0D: state = .sizeEnd
                case 0x0A: endSizeLine()
                default: return fail("a chunk size that is not hex digits", semicolons)
                }
            case .sizeEnd:
                guard byte == 0x0A else { return fail("a CR that does not end a chunk-size line", semicolons) }
                endSizeLine()
            case .extensions:
                if byte == 0x0A { endSizeLine() }
            case .data(let remaining):
                if remaining > 1 {
                    state = .data(remaining: remaining - 1)
                } else {
                    state = .dataEnd
                    lineLength = 0
                }
            case .dataEnd:
                if byte == 0x0D, lineLength == 1 { continue }
                guard byte == 0x0A else { return fail("chunk data longer than its size", semicolons) }
                state = .size
                size = 0
                digits = 0
                lineLength = 0
            case .trailer:
                if byte == 0x0A {
                    if !trailerLineHasBytes {
                        verdict = .complete(length: consumed)
                        return semicolons
                    }
                    trailerLineHasBytes = false
                    lineLength = 0
                } else if byte != 0x0D {
                    trailerLineHasBytes = true
                }
            }
            if lineLength > Self.maxLineLength {
                switch state {
                case .data, .trailer: break
                default: return fail("a chunk-size line longer than \(Self.maxLineLength) bytes", semicolons)
                }
            }
        }
        return semicolons
    }

    private mutating func fail(_ reason: String, _ semicolons: [Int]) -> [Int] {
        verdict = .invalid(reason)
        return semicolons
    }

    private mutating func endSizeLine() {
        lineLength = 0
        state = size == 0 ? .trailer : .data(remaining: size)
        dataLength = size > Int.max - dataLength ? Int.max : dataLength + size
        if dataLength > maxData { verdict = .tooLarge }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }
}
