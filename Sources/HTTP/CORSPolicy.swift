/// Which web origins may call the service from a browser (`--cors`): by default pages served from this
/// machine's loopback on any port (a front end's dev server), so no other site a user visits can read or
/// change their local state.
package struct CORSPolicy: Sendable, Equatable {
    /// The allowed origins.
    package enum Origins: Sendable, Equatable {
        /// Every origin (`--cors '*'`).
        case any
        /// `http://localhost`, `http://127.0.0.1` and `http://[::1]` on any port (the default).
        case loopback
        /// Exactly these origins, e.g. `http://localhost:3000`.
        case list([String])
    }

    /// Headers a page may read from our responses: a list's count and pages, a created item's place, a
    /// version, and what a failed write needs to be sent again (its key, after a 504; when, after a 503).
    package static let exposedHeaders = "X-Total-Count, Link, Location, ETag, Idempotency-Key, Retry-After"
    /// Methods a preflight allows when the path is unknown.
    package static let allMethods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
    /// Request headers a preflight allows when the browser names none.
    package static let defaultAllowedHeaders = "Content-Type, Authorization, Last-Event-ID"

    /// The allowed origins.
    package var origins: Origins

    package init(origins: Origins) {
        self.origins = origins
    }

    /// The default: loopback origins on any port.
    package static let loopback = CORSPolicy(origins: .loopback)

    /// Parses `*` or a comma-separated list of origins; nil for an empty or malformed list.
    package init?(parsing text: String) {
        let items = text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        if items == ["*"] {
            origins = .any
            return
        }
        // NB: `null` is the origin of a page opened from a file (`file://`), which a user may admit.
        guard !items.isEmpty,
            items.allSatisfy({
                $0 == "null" || (($0.hasPrefix("http://") || $0.hasPrefix("https://")) && !$0.hasSuffix("/"))
            })
        else { return nil }
        origins = .list(items)
    }

    /// The `Access-Control-Allow-Origin` value for a request from `origin`, nil when not allowed.
    package func allowedOrigin(for origin: String?) -> String? {
        guard let origin else { return nil }
        switch origins {
        case .any: return "*"
        case .loopback: return Self.isLoopback(origin) ? origin : nil
        case .list(let list): return list.contains(origin) ? origin : nil
        }
    }

    /// Whether `origin` is `http://localhost`, `http://127.0.0.1` or `http://[::1]`, with or without a port.
    private static func isLoopback(_ origin: String) -> Bool {
        guard origin.hasPrefix("http://") else { return false }
        var host = Substring(origin.dropFirst("http://".count))
        if let colon = host.lastIndex(of: ":"), host.last != "]" {
            let port = host[host.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else {
                return false
            }
            host = host[..<colon]
        }
        return host == "localhost" || host == "127.0.0.1" || host == "[::1]"
    }

    /// Adds the CORS headers for a request from `origin` to a response's headers.
    package func decorate(_ headers: inout HTTPHeaders, origin: String?) {
        if origins != .any { headers.add("Vary", "Origin") }
        guard let allowed = allowedOrigin(for: origin) else { return }
        headers["Access-Control-Allow-Origin"] = allowed
        headers["Access-Control-Expose-Headers"] = Self.exposedHeaders
    }

    /// The 204 answer to a preflight `OPTIONS` request.
    package func preflight(_ request: Request, allowedMethods: [HTTPMethod]) -> Response {
        var response = Response(status: 204)
        decorate(&response.headers, origin: request.headers["Origin"])
        guard response.headers.contains("Access-Control-Allow-Origin") else { return response }
        response.headers["Access-Control-Allow-Methods"] =
            allowedMethods.isEmpty ? Self.allMethods : allowedMethods.map(\.rawValue).joined(separator: ", ")
        response.headers["Access-Control-Allow-Headers"] =
            request.headers["Access-Control-Request-Headers"] ?? Self.defaultAllowedHeaders
        response.headers["Access-Control-Max-Age"] = "600"
        return response
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    package func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
