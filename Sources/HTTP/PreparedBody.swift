import Deflate
import Synchronization

/// A body sent many times unchanged (a list snapshot, a static file): its entity tag computed once, on the
/// first request that needs it, and its gzip form compressed once, on the first request that accepts gzip,
/// then kept beside the identity bytes. Neither is made for a body no request reads: a list written many
/// times between two reads costs its writes no checksum of the whole list.
///
/// ```swift
/// let body = PreparedBody(bytes)
/// var response = Response.json(encoded: bytes)
/// response.prepared = body     // ContentNegotiation serves body.gzipped() to gzip clients
/// ```
package final class PreparedBody: Sendable {
    /// The identity bytes (what `Response.body` holds).
    package let identity: [UInt8]
    /// The strong entity tag of the identity bytes, quoted (`"…"`); the gzip form's is `gzipTag`. Computed
    /// on first use when no tag was given.
    package var etag: String {
        tag.withLock { tag in
            if let tag { return tag }
            let made = "\"\(Checksum.fingerprint(identity))\""
            tag = made
            return made
        }
    }
    private let tag: Mutex<String?>
    // NB: compressed under the lock, so concurrent first requests on several loops compress once, not each.
    private let gzip = Mutex<[UInt8]?>(nil)
    /// The negotiated answers per encoding (identity, gzip), with the response headers they were made from.
    /// (An inner nil: made, and the response is not negotiated; an outer nil: not made yet.)
    private let representations = Mutex<(headers: HTTPHeaders, identity: Representation??, gzip: Representation??)?>(
        nil)

    /// What every `GET` of this body with one encoding is answered: the `200` as sent (its headers —
    /// `Content-Type`, `Vary`, `ETag`, `Content-Encoding`… — and body) and the `304` for a matching
    /// `If-None-Match`, made once per change instead of per request.
    ///
    /// NB: a class, so a `GET` takes it out of the lock with one retain, not a copy of two responses.
    package final class Representation: Sendable {
        /// The `200`.
        package let response: Response
        /// The `304`.
        package let notModified: Response
        /// The identity form's tag, which `If-None-Match` is compared with (and its `-gzip` form).
        package let identityTag: String

        package init(response: Response, notModified: Response, identityTag: String) {
            self.response = response
            self.notModified = notModified
            self.identityTag = identityTag
        }
    }

    /// `etag` nil: a tag from the bytes' checksums (`Checksum.fingerprint`), made when first read.
    package init(_ identity: [UInt8], etag: String? = nil) {
        self.identity = identity
        tag = Mutex(etag)
    }

    /// The gzip member of `identity` (compressed on the first call); nil if libdeflate could not allocate.
    package func gzipped() -> [UInt8]? {
        gzip.withLock { cached in
            if let cached { return cached }
            cached = Gzip.compress(identity)
            return cached
        }
    }

    /// The answers for the `gzip` encoding or identity of a response with `headers`: made by `make` on
    /// first use, then kept while the response's headers stay the same (headers a route changed get their
    /// own, replacing these).
    package func representation(
        gzip: Bool, of headers: HTTPHeaders, make: () -> Representation?
    ) -> Representation? {
        let kept = representations.withLock { kept -> Representation?? in
            guard let kept, kept.headers.isSameStorage(as: headers) || kept.headers == headers else { return nil }
            return gzip ? kept.gzip : kept.identity
        }
        if let kept { return kept }
        // NB: made outside the lock (a first gzip request compresses); two loops may both make it, alike.
        let made = make()
        representations.withLock { kept in
            if kept == nil || !(kept!.headers.isSameStorage(as: headers) || kept!.headers == headers) {
                kept = (headers, nil, nil)
            }
            if gzip { kept!.gzip = .some(made) } else { kept!.identity = .some(made) }
        }
        return made
    }

    /// The tag of the gzip form: the identity tag with `-gzip` inside the quotes (as Apache's mod_deflate
    /// does), so the two representations never share a strong validator.
    package var gzipTag: String {
        ContentNegotiation.gzipTag(etag)
    }
}
