/// A byte-level check of a request head before libevent parses it, fed as the bytes arrive.
///
/// libevent 2.1's evhttp parses heads loosely: it cuts a header value at a NUL (its lines are C strings),
/// keeps a name that ends in whitespace (`Content-Length : 35` is then not a length), and takes any bytes
/// in the request target. Behind a proxy that frames the same bytes differently, each is request
/// smuggling. This check does not parse for evhttp (evhttp still does that); it only refuses the bytes
/// RFC 9112 forbids, and notes the framing the head declares so the listener can bound the body's time.
///
/// Lines end at LF, with an optional CR before it, as evhttp reads them (`EVBUFFER_EOL_CRLF`).
package struct RawRequestCheck: Sendable {
    /// What the check knows after the bytes fed so far.
    package enum Verdict: Equatable, Sendable {
        /// The head is not complete yet; nothing wrong so far.
        case incomplete
        /// The head ended (its blank line) after `length` bytes, all of them sound.
        case complete(Head)
        /// The head breaks RFC 9112: the reason, for the 400's message.
        case invalid(String)
    }

    /// What a sound head declares about itself.
    package struct Head: Equatable, Sendable {
        /// Bytes of the head, through its blank line.
        package var length: Int
        /// The request method as sent.
        package var method: String
        /// The version is HTTP/1.1 or later (Host is then required, and keep-alive the default).
        package var isHTTP11: Bool
        /// The `Content-Length` value, when there is exactly one and it is digits only.
        package var contentLength: Int?
        /// The `Transfer-Encoding` values, trimmed, in order.
        package var transferEncodings: [String]
        /// The transfer coding is `chunked`, alone.
        package var chunked: Bool
    }

    private enum Line {
        case request, name, value
    }

    private enum FramingName {
        case contentLength, transferEncoding
    }

    /// Heads longer than this are evhttp's to refuse (its max headers size); the check stops there.
    private let limit: Int
    private(set) package var verdict: Verdict = .incomplete {
        didSet { decided = true }
    }
    /// The verdict is no longer `.incomplete` (a flag: comparing the enum, whose `.complete` carries strings,
    /// for every byte cost more than the rest of the check).
    private var decided = false
    private var consumed = 0
    private var line = Line.request
    private var lineLength = 0
    private var afterCR = false
    // The request line: its three parts.
    private var spaces = 0
    /// The method's first eight bytes, packed (the first in the lowest byte), and its length: every method a
    /// server usually sees is kept without an allocation. A longer method is kept in `longMethod` (its first
    /// `maxKept + 1` bytes).
    private var packedMethod: UInt64 = 0
    private var methodLength = 0
    private var longMethod: [UInt8] = []
    /// The method as a string, made when its last byte arrived.
    private var method = ""
    /// The version: its length so far, whether it reads `HTTP/DIGIT.DIGIT` so far, and its two digits (checked
    /// as the bytes arrive, so that no bytes are kept).
    private var versionLength = 0
    private var versionSound = true
    private var versionDigits: (major: UInt8, minor: UInt8) = (0, 0)
    // The header line being read: whether its name may still be one of the two that decide the framing
    // (compared byte by byte, case-insensitively, so that no name is stored), and then that value.
    private var mayBeContentLength = true
    private var mayBeTransferEncoding = true
    private var framingName: FramingName?
    private var value: [UInt8] = []
    private var contentLengths: [[UInt8]] = []
    private var transferEncodings: [[UInt8]] = []

    /// Whether the method read so far is `HEAD` (its answer then carries no body).
    package var isHEAD: Bool { methodLength == 4 && packedMethod == Self.packedHEAD }

    package init(limit: Int = 64 << 10) {
        self.limit = limit
    }

    /// Feeds the next bytes of the stream; returns the verdict. Once complete or invalid, more bytes
    /// change nothing (they belong to the body or the next request).
    @discardableResult
    package mutating func feed(_ bytes: some Collection<UInt8>) -> Verdict {
        Array(bytes).withUnsafeBufferPointer { feed($0) }
    }

    /// `feed` without a copy (the listener's path, on the input buffer's own memory).
    @discardableResult
    package mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> Verdict {
        guard !decided, consumed <= limit, let base = bytes.baseAddress else { return verdict }
        var index = 0
        while index < bytes.count {
            // NB: the request target and the values of fields that do not decide the framing are most of a
            // head's bytes and need only a range check each; they are passed over here, not stepped through.
            let skipped = skipPlainBytes(base + index, min(bytes.count - index, limit + 1 - consumed))
            if skipped > 0 {
                index += skipped
                consumed += skipped
                lineLength += skipped
                if consumed > limit { return verdict }
                continue
            }
            consumed += 1
            if let reason = step(base[index]) {
                verdict = .invalid(reason)
                return verdict
            }
            index += 1
            if decided || consumed > limit { return verdict }
        }
        return verdict
    }

    /// How many bytes from `start` need no step: inside the request target (any visible byte but a space),
    /// or inside a value that is not kept (a visible byte, a space or a tab). Stops before any other byte.
    private func skipPlainBytes(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int {
        guard !afterCR else { return 0 }  // the byte after a CR must be its LF: stepped
        var index = 0
        switch line {
        case .request where spaces == 1:
            while index < count, start[index] > 0x20, start[index] < 0x7F { index += 1 }
        case .value where framingName == nil:
            while index < count, start[index] >= 0x20 && start[index] < 0x7F || start[index] == 0x09 { index += 1 }
        default:
            break
        }
        return index
    }

    // MARK: Bytes

    private static let maxKept = 64

    /// One byte; a reason when it breaks the head.
    private mutating func step(_ byte: UInt8) -> String? {
        if afterCR {
            guard byte == 0x0A else { return "a CR that does not end a line" }
            afterCR = false
            return endOfLine()
        }
        if byte == 0x0D {
            afterCR = true
            return nil
        }
        if byte == 0x0A { return endOfLine() }
        if byte == 0 { return "a NUL byte in the request head" }
        defer { lineLength += 1 }
        switch line {
        case .request:
            return requestLine(byte)
        case .name:
            if lineLength == 0, byte == 0x20 || byte == 0x09 {
                // RFC 9112 5.2 lets a server refuse obsolete line folding; a proxy that does not unfold
                // would see another header than evhttp, which appends the line to the previous one.
                return "obsolete line folding (a header line that starts with whitespace)"
            }
            if byte == UInt8(ascii: ":") {
                guard lineLength > 0 else { return "a header with an empty name" }
                line = .value
                if mayBeContentLength, lineLength == Self.contentLength.count {
                    framingName = .contentLength
                } else if mayBeTransferEncoding, lineLength == Self.transferEncoding.count {
                    framingName = .transferEncoding
                }
                return nil
            }
            if byte == 0x20 || byte == 0x09 { return "whitespace in a header name or before its colon" }
            guard Self.isTokenCharacter(byte) else { return "a header name with a byte that is not a token" }
            let lower = Self.lowercased(byte)
            mayBeContentLength =
                mayBeContentLength && lineLength < Self.contentLength.count && Self.contentLength[lineLength] == lower
            mayBeTransferEncoding =
                mayBeTransferEncoding && lineLength < Self.transferEncoding.count
                && Self.transferEncoding[lineLength] == lower
            return nil
        case .value:
            if byte < 0x20 && byte != 0x09 || byte == 0x7F { return "a control character in a header value" }
            if framingName != nil, value.count <= Self.maxKept { value.append(byte) }
            return nil
        }
    }

    private mutating func requestLine(_ byte: UInt8) -> String? {
        if byte == 0x20 {
            guard lineLength > 0, spaces < 2 else { return "a request line that is not method, target, version" }
            if spaces == 0 { method = methodName() }
            spaces += 1
            return nil
        }
        guard byte > 0x20, byte < 0x7F else { return "a byte in the request line that HTTP does not allow" }
        switch spaces {
        case 0:
            guard Self.isTokenCharacter(byte) else { return "a method that is not a token" }
            methodByte(byte)
        case 2:
            versionByte(byte)
        default:
            break
        }
        return nil
    }

    /// One byte of the method, at `methodLength`.
    private mutating func methodByte(_ byte: UInt8) {
        if methodLength < 8 {
            packedMethod |= UInt64(byte) << (8 * methodLength)
        } else if methodLength <= Self.maxKept {
            if longMethod.isEmpty { longMethod = Self.unpacked(packedMethod, count: 8) }
            longMethod.append(byte)
        }
        methodLength += 1
    }

    /// The method read so far, as a string: one of `knownMethods` (a literal: nothing made), or made from
    /// its bytes.
    private func methodName() -> String {
        guard methodLength <= 8 else { return String(decoding: longMethod, as: UTF8.self) }
        for known in Self.knownMethods where known.packed == packedMethod { return known.name }
        return String(decoding: Self.unpacked(packedMethod, count: methodLength), as: UTF8.self)
    }

    /// One byte of the version, at `versionLength`: `HTTP/` then a digit, `.`, a digit, and nothing more.
    private mutating func versionByte(_ byte: UInt8) {
        let isDigit = byte >= 0x30 && byte <= 0x39
        switch versionLength {
        case 0..<5: versionSound = versionSound && byte == Self.httpSlash[versionLength]
        case 5: (versionSound, versionDigits.major) = (versionSound && isDigit, byte)
        case 6: versionSound = versionSound && byte == UInt8(ascii: ".")
        case 7: (versionSound, versionDigits.minor) = (versionSound && isDigit, byte)
        default: versionSound = false
        }
        versionLength += 1
    }

    private mutating func endOfLine() -> String? {
        defer {
            lineLength = 0
            mayBeContentLength = true
            mayBeTransferEncoding = true
            framingName = nil
        }
        switch line {
        case .request:
            guard spaces == 2, versionLength > 0, !method.isEmpty else {
                return "a request line that is not method, target, version"
            }
            guard versionSound, versionLength == 8 else { return "an HTTP version that is not HTTP/DIGIT.DIGIT" }
            line = .name
        case .name:
            if lineLength == 0 {
                verdict = .complete(head())
                return nil
            }
            return "a header line without a colon"
        case .value:
            keepFramingValue()
            line = .name
        }
        return nil
    }

    // MARK: Framing

    private mutating func keepFramingValue() {
        guard let framingName else { return }
        switch framingName {
        case .contentLength: contentLengths.append(Self.trimmed(value))
        case .transferEncoding: transferEncodings.append(Self.trimmed(value))
        }
        value = []
    }

    private func head() -> Head {
        var length: Int?
        if contentLengths.count == 1, let digits = contentLengths.first, !digits.isEmpty, digits.count <= 18,
            digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        {
            length = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        let chunked = transferEncodings.count == 1 && transferEncodings[0].map(Self.lowercased) == Self.chunked
        return Head(
            length: consumed, method: method,
            isHTTP11: versionDigits.major == UInt8(ascii: "1") && versionDigits.minor >= UInt8(ascii: "1"),
            contentLength: length,
            transferEncodings: transferEncodings.map { String(decoding: $0, as: UTF8.self) }, chunked: chunked)
    }

    // MARK: Character classes (RFC 9110 5.6.2)

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            tokenPunctuation.contains(byte)
        }
    }

    private static let knownMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"]
        .map { (packed: packed($0), name: $0) }
    private static let packedHEAD = packed("HEAD")

    /// The first eight bytes of `text` as `packedMethod` packs them.
    private static func packed(_ text: String) -> UInt64 {
        text.utf8.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
    }

    private static func unpacked(_ packed: UInt64, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: packed >> (8 * $0)) }
    }

    private static let contentLength = Array("content-length".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)
    private static let chunked = Array("chunked".utf8)
    private static let tokenPunctuation = Array("!#$%&'*+-.^_`|~".utf8)
    private static let httpSlash = Array("HTTP/".utf8)

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return Array(bytes[first...last])
    }
}
