/// An HTTP request as a Swift value, so routes are tested without a socket.
package struct Request: Sendable {
    /// The request method.
    package var method: HTTPMethod
    /// The percent-decoded path, always starting with `/`.
    package var path: String
    /// The path exactly as sent (still percent-encoded), without the query.
    package var rawPath: String
    /// The parsed query string.
    package var query: QueryParameters
    /// The query string exactly as sent (still percent-encoded), without the `?`; empty without one.
    package var rawQuery: String
    /// The request header fields.
    package var headers: HTTPHeaders
    /// The request body (at most 1 MiB; the listener refuses larger ones).
    package var body: [UInt8]
    /// The parameters the matching route captured.
    package var parameters: Parameters = Parameters()

    /// Builds a request from a target like `/albums?albumId=3`.
    package init(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        let (rawPath, rawQuery) = Self.split(target: target)
        self.method = method
        self.rawPath = rawPath
        self.path = PercentDecoding.decode(Substring(rawPath))
        self.query = QueryParameters(parsing: rawQuery)
        self.rawQuery = String(rawQuery)
        self.headers = headers
        self.body = body
    }

    /// The value of path parameter `name` as `T`; a 400 naming it when missing or malformed.
    package func require<T: LosslessStringConvertible>(_ name: String, as type: T.Type = T.self) throws(HTTPError) -> T
    {
        try parameters.require(name, as: type)
    }

    /// Splits `/path?query#fragment` into the raw path and the raw query.
    package static func split(target: String) -> (path: String, query: Substring) {
        // NB: searched as UTF-8 bytes: `Character` iteration (grapheme breaking) cost more than the rest of
        // the request's parsing together.
        var target = Substring(target)
        if let hash = target.utf8.firstIndex(of: UInt8(ascii: "#")) { target = target[..<hash] }
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else {
            return (target.isEmpty ? "/" : String(target), "")
        }
        let path = target[..<mark]
        return (path.isEmpty ? "/" : String(path), target[target.utf8.index(after: mark)...])
    }
}
