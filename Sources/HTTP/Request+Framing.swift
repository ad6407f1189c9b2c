extension Request {
    /// Why the request's body framing is ambiguous, or nil when it is sound.
    ///
    /// NB: libevent 2.1 takes the first `Content-Length` it finds and parses it with `strtoll` (so `+5` passes),
    /// lets `Transfer-Encoding: chunked` silently win over a `Content-Length`, reads no body for any other
    /// transfer coding (so `identity` or `xchunked` leave the body to be read as the next request), and reads
    /// none for `HEAD` whatever its headers say. A proxy in front may have framed the same bytes differently
    /// (request smuggling), so RFC 9112 (6.1, 6.3) wants such a request refused and the connection closed.
    package var framingError: HTTPError? {
        // The usual request declares neither: nothing to check, no array made.
        guard headers.contains("Content-Length") || headers.contains("Transfer-Encoding") else { return nil }
        let lengths = headers.all("Content-Length")
        let codings = headers.all("Transfer-Encoding")
        if !lengths.isEmpty {
            let values = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingWhitespace() }
            guard values.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else {
                return Self.framing("Content-Length must be digits only")
            }
            guard Set(values.map { $0.drop { $0 == "0" } }).count == 1 else {
                return Self.framing("conflicting Content-Length values")
            }
            if !codings.isEmpty {
                return Self.framing("Content-Length and Transfer-Encoding together")
            }
            if method == .head, values.contains(where: { $0.contains { $0 != "0" } }) {
                return Self.framing("a HEAD request carries no body")
            }
        }
        if !codings.isEmpty {
            if method == .head { return Self.framing("a HEAD request carries no body") }
            return Self.transferCodingError(codings)
        }
        return nil
    }

    /// The wire-level rules a request built in a test need not follow: HTTP/1.1 needs exactly one `Host`
    /// (RFC 9112 3.2), and HTTP/1.0 has no `Transfer-Encoding` (RFC 9112 6.1: its framing is faulty).
    package func wireFramingError(isHTTP11: Bool) -> HTTPError? {
        if isHTTP11 {
            let hosts = headers.count(of: "Host")
            if hosts != 1 { return Self.framing(hosts == 0 ? "HTTP/1.1 needs a Host header" : "more than one Host") }
        } else if headers.contains("Transfer-Encoding") {
            return Self.framing("Transfer-Encoding in an HTTP/1.0 request")
        }
        return framingError
    }

    /// Only `chunked` is served, alone; another coding is a 501 (RFC 9112 6.1), a malformed list a 400.
    package static func transferCodingError(_ values: [String]) -> HTTPError? {
        let codings = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingWhitespace().lowercased() }
        if codings.contains(where: \.isEmpty) { return framing("an empty transfer coding") }
        if let unknown = codings.first(where: { $0 != "chunked" }) {
            return HTTPError(
                501, "not_implemented",
                "the transfer coding '\(unknown)' is not supported; send the body with Content-Length or chunked",
                headers: ["Connection": "close"])
        }
        return codings.count == 1 ? nil : framing("chunked more than once")
    }

    private static func framing(_ message: String) -> HTTPError {
        HTTPError(400, "bad_request", "the request is not valid HTTP: \(message)", headers: ["Connection": "close"])
    }
}
