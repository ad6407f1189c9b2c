extension Request {
    /// `http://` and the request's `Host` when it is a plain authority (a name or address and a port): the
    /// base of absolute URLs in answers (`Link`), and the server's own origin for the Origin rule; nil when
    /// the `Host` holds anything else.
    ///
    /// NB: the `Host` is vetted before a route runs (`HostPolicy`, on a loopback listener); its characters are
    /// checked here too, so that no `Host` can break the syntax of a header the URL goes into.
    package var hostBase: String? {
        guard let host = headers["Host"], !host.isEmpty, host.utf8.count <= 255,
            host.utf8.allSatisfy({ byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
                    UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "_"):
                    true
                default: false
                }
            })
        else { return nil }
        return "http://" + host
    }

    /// Whether `origin` (an `Origin` field) is the server's own: its pages, at the scheme and `Host` this
    /// request was sent to (`https` too, for a server behind a TLS proxy), compared ignoring case.
    package func isOwnOrigin(_ origin: String) -> Bool {
        guard let base = hostBase else { return false }
        let host = base.dropFirst("http://".count).lowercased()
        let given = origin.lowercased()
        return given == "http://" + host || given == "https://" + host
    }
}
