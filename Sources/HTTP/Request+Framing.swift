extension Request {
    /// Why the request's body framing is ambiguous, or nil when it is sound.
    ///
    /// NB: libevent 2.1 takes the first `Content-Length` it finds and parses it with `strtoll` (so `+5` passes),
    /// and lets `Transfer-Encoding: chunked` silently win over a `Content-Length`. A proxy in front may have
    /// framed the same bytes differently (request smuggling), so RFC 9112 (6.3) wants such a request refused
    /// and the connection closed.
    package var framingError: HTTPError? {
        let lengths = headers.all("Content-Length")
        if !lengths.isEmpty {
            let values = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingWhitespace() }
            guard values.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }) else {
                return Self.framing("Content-Length must be digits only")
            }
            guard Set(values.map { $0.drop { $0 == "0" } }).count == 1 else {
                return Self.framing("conflicting Content-Length values")
            }
            if headers.contains("Transfer-Encoding") {
                return Self.framing("Content-Length and Transfer-Encoding together")
            }
        }
        return nil
    }

    private static func framing(_ message: String) -> HTTPError {
        HTTPError(400, "bad_request", "the request is not valid HTTP: \(message)", headers: ["Connection": "close"])
    }
}
