/// Which `Host` names a request may carry (`--allowed-hosts`): the check against DNS rebinding.
///
/// A page on any site can re-point its own name at 127.0.0.1 and then talk to a server on this machine as
/// its own origin, out of reach of CORS; the name stays in `Host`. So a server listening on loopback answers
/// only requests addressed to a loopback name or address, or to a name the user allowed.
///
/// ```swift
/// let policy = HostPolicy(allowedNames: ["dev.example"])
/// policy.accepts("localhost:8080")        // true
/// policy.accepts("[::1]:8080")            // true
/// policy.accepts("dev.example:8080")      // true
/// policy.accepts("evil.example:8080")     // false
/// ```
package struct HostPolicy: Sendable, Equatable {
    /// The names accepted besides loopback ones, lowercased, without port.
    package let allowedNames: Set<String>

    package init(allowedNames: [String] = []) {
        self.allowedNames = Set(allowedNames.map { Self.name(of: $0) })
    }

    /// Parses a comma-separated list of host names; nil for an empty list or a name with a space, `/` or `@`.
    package init?(parsing text: String) {
        let items = text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        guard !items.isEmpty,
            items.allSatisfy({ item in !item.contains { $0.isWhitespace || $0 == "/" || $0 == "@" } })
        else { return nil }
        self.init(allowedNames: items)
    }

    /// Whether a request whose `Host` field is `host` may be answered. A request without `Host` (HTTP/1.0) names
    /// no site, so no page could have sent it: it passes.
    package func accepts(_ host: String?) -> Bool {
        guard let host else { return true }
        guard Self.isWellFormed(host) else { return false }
        let name = Self.name(of: host)
        return Self.isLoopback(name) || allowedNames.contains(name)
    }

    /// Whether `name` (no port) is a loopback name or address: `localhost`, `::1`, `[::1]`, 127.0.0.0/8.
    package static func isLoopback(_ name: String) -> Bool {
        let name = Self.name(of: name)
        if name == "localhost" || name == "[::1]" || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in UInt8(part).map { _ in part.first != "+" } ?? false }
    }

    /// Whether `host` is what a `Host` field may hold (RFC 9110 7.2, RFC 3986 3.2.2): a registered name or an
    /// IPv4 address, or an IPv6 address in brackets, then optionally `:` and digits. A value with userinfo
    /// (`127.0.0.1:80@evil.example`), a path, a query or whitespace is none: a proxy or a browser may read
    /// another host out of it than the name this check would see.
    package static func isWellFormed(_ host: String) -> Bool {
        var bytes = Substring(host).utf8[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy(isIPv6LiteralByte) else { return false }
            bytes = bytes[bytes.index(after: close)...]
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            guard bytes[..<end].allSatisfy(isRegisteredNameByte) else { return false }
            bytes = bytes[end...]
        }
        guard let colon = bytes.first else { return true }
        return colon == UInt8(ascii: ":") && bytes.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// RFC 3986 `reg-name`: unreserved, sub-delims and `%` (of a pct-encoding).
    private static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            namePunctuation.contains(byte)
        }
    }

    private static let namePunctuation = Array("-._~%!$&'()*+,;=".utf8)

    /// What an IPv6 address (with an IPv4 tail, or a zone after `%25`) holds between its brackets.
    private static func isIPv6LiteralByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            literalPunctuation.contains(byte)
        }
    }

    private static let literalPunctuation = Array(":.%-_~".utf8)

    /// The name of a `Host` value: lowercased, without its port and a final dot. An IPv6 address keeps its
    /// brackets; a bare one (`::1`, from `--host`) gets them.
    private static func name(of host: String) -> String {
        var text = Substring(host.lowercased())
        if text.hasPrefix("[") {
            if let close = text.firstIndex(of: "]") { text = text[...close] }
            return String(text)
        }
        if text.filter({ $0 == ":" }).count > 1 { return "[\(text)]" }
        if let colon = text.lastIndex(of: ":") { text = text[..<colon] }
        if text.hasSuffix(".") { text = text.dropLast() }
        return String(text)
    }
}
