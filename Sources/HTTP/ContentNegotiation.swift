import Deflate

/// Entity tags, `304 Not Modified` and gzip for the `200` answers of `GET` and `HEAD` (HEAD gets the very
/// headers GET would), applied by `HTTPService` to every complete response.
///
/// - A JSON `200` carries a strong `ETag` from its bytes: a response with a `PreparedBody` (list snapshots,
///   static files) has it computed once per change; other JSON is fingerprinted per request.
/// - A body of a compressible type (JSON, `text/*`, SVG) always carries `Vary: Accept-Encoding`; when it
///   is at least `threshold` bytes and `Accept-Encoding` accepts gzip, it goes out gzipped, with the
///   tag suffixed `-gzip` inside the quotes. Prepared bodies are compressed once; others per request at a
///   fast level.
/// - `If-None-Match` naming the tag of either encoding of the same bytes (or `*`) gives `304` with the tag
///   of the encoding this request would get: both tags name the same version of the resource.
package enum ContentNegotiation {
    /// Bodies below this many bytes go out as they are (gzip would save little and cost a header).
    package static let threshold = 1024
    /// The level of bodies compressed per request (prepared ones use `Gzip.defaultLevel`, once).
    package static let onTheFlyLevel: Int32 = 1

    /// `response` as `request` should receive it.
    ///
    /// A response with a `PreparedBody` is negotiated once per encoding (its headers, body and `304`
    /// made on the first request that gets that encoding, `PreparedBody.Representation`), then every
    /// `GET` until the next change only reads `Accept-Encoding` and `If-None-Match`.
    package static func apply(_ response: Response, for request: Request) -> Response {
        guard request.method == .get || request.method == .head, response.status == 200 else { return response }
        if let prepared = response.prepared, prepared.identity.count == response.body.count {
            let gzip = response.body.count >= threshold && AcceptEncoding.acceptsGzip(acceptEncoding(request))
            let ready = prepared.representation(gzip: gzip, of: response.headers) {
                Self.representation(of: response, gzip: gzip)
            }
            if let ready {
                guard let tags = request.headers["If-None-Match"],
                    matches(tags, ready.identityTag) || matches(tags, gzipTag(ready.identityTag))
                else { return ready.response }
                return ready.notModified
            }
        }
        return negotiate(
            response, gzip: AcceptEncoding.acceptsGzip(acceptEncoding(request)),
            ifNoneMatch: request.headers["If-None-Match"])
    }

    /// The answers to every request for `response` that gets the `gzip` encoding or not, worked out once;
    /// nil when the response is not negotiated (no tag: it goes out as it is).
    private static func representation(of response: Response, gzip: Bool) -> PreparedBody.Representation? {
        var ok = negotiate(response, gzip: gzip, ifNoneMatch: nil)
        ok.shared = SharedBytes(ok.body)
        let notModified = negotiate(response, gzip: gzip, ifNoneMatch: "*")
        guard notModified.status == 304, let tag = response.headers["ETag"] ?? response.prepared?.etag else {
            return nil
        }
        return PreparedBody.Representation(response: ok, notModified: notModified, identityTag: tag)
    }

    /// `response` negotiated for a request that accepts gzip (`acceptsGzip`) and sent `ifNoneMatch`.
    private static func negotiate(_ response: Response, gzip acceptsGzip: Bool, ifNoneMatch: String?) -> Response {
        guard !response.headers.contains("Content-Encoding") else { return response }
        let type = response.headers["Content-Type"] ?? ""
        let json = type.hasPrefix("application/json")
        guard json || isCompressible(type) else { return response }
        // NB: a prepared body only stands for `body` if nothing replaced the bytes since it was attached.
        let prepared = response.prepared.flatMap { $0.identity.count == response.body.count ? $0 : nil }
        var response = response
        response.prepared = nil
        addVary(&response.headers)
        let identityTag = response.headers["ETag"] ?? prepared?.etag ?? (json ? fingerprintTag(response.body) : nil)
        let gzip = response.body.count >= threshold && acceptsGzip
        let tag = identityTag.map { gzip ? gzipTag($0) : $0 }
        if let identityTag, let tag, let tags = ifNoneMatch,
            matches(tags, identityTag) || matches(tags, gzipTag(identityTag))
        {
            var headers: HTTPHeaders = ["ETag": tag, "Vary": response.headers["Vary"] ?? "Accept-Encoding"]
            if let cache = response.headers["Cache-Control"] { headers["Cache-Control"] = cache }
            return Response(status: 304, headers: headers)
        }
        if gzip, let packed = prepared?.gzipped() ?? Gzip.compress(response.body, level: onTheFlyLevel) {
            response.body = packed
            response.headers["Content-Encoding"] = "gzip"
        }
        if let tag { response.headers["ETag"] = response.headers["Content-Encoding"] == nil ? identityTag : tag }
        return response
    }

    /// `"abc"` → `"abc-gzip"`, `W/"abc"` → `W/"abc-gzip"`.
    package static func gzipTag(_ tag: String) -> String {
        guard tag.hasSuffix("\"") else { return tag + "-gzip" }
        return String(tag.dropLast()) + "-gzip\""
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110 §13.1.2 asks; `*` matches).
    package static func matches(_ header: String, _ etag: String) -> Bool {
        let bare = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        return header.split(separator: ",").contains { item in
            let tag = item.trimmingWhitespace()
            return tag == "*" || tag == bare || tag == "W/" + bare
        }
    }

    private static func fingerprintTag(_ body: [UInt8]) -> String {
        "\"\(Checksum.fingerprint(body))\""
    }

    private static func isCompressible(_ type: String) -> Bool {
        type.hasPrefix("text/") || type.hasPrefix("image/svg+xml") || type.hasPrefix("application/javascript")
            || type.hasPrefix("application/manifest+json")
    }

    private static func acceptEncoding(_ request: Request) -> String? {
        request.headers.combined("Accept-Encoding")
    }

    /// Adds `Accept-Encoding` to `Vary` unless it is there.
    private static func addVary(_ headers: inout HTTPHeaders) {
        guard let vary = headers["Vary"] else {
            headers["Vary"] = "Accept-Encoding"
            return
        }
        let names = vary.split(separator: ",").map { $0.trimmingWhitespace().lowercased() }
        if !names.contains("accept-encoding"), !names.contains("*") { headers["Vary"] = vary + ", Accept-Encoding" }
    }
}
