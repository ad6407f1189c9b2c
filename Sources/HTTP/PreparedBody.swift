package import Deflate
import Synchronization

/// A body sent many times unchanged (a list snapshot, a static file): its entity tag computed once, and its
/// gzip form compressed once, on the first request that accepts gzip, then kept beside the identity bytes.
///
/// ```swift
/// let body = PreparedBody(bytes)
/// var response = Response.json(encoded: bytes)
/// response.prepared = body     // ContentNegotiation serves body.gzipped() to gzip clients
/// ```
package final class PreparedBody: Sendable {
    /// The identity bytes (what `Response.body` holds).
    package let identity: [UInt8]
    /// The strong entity tag of the identity bytes, quoted (`"…"`); the gzip form's is `gzipTag`.
    package let etag: String
    // NB: compressed under the lock, so concurrent first requests on several loops compress once, not each.
    private let gzip = Mutex<[UInt8]?>(nil)

    /// `etag` nil: a tag from the bytes' checksums (`Checksum.fingerprint`).
    package init(_ identity: [UInt8], etag: String? = nil) {
        self.identity = identity
        self.etag = etag ?? "\"\(Checksum.fingerprint(identity))\""
    }

    /// The gzip member of `identity` (compressed on the first call); nil if libdeflate could not allocate.
    package func gzipped() -> [UInt8]? {
        gzip.withLock { cached in
            if let cached { return cached }
            cached = Gzip.compress(identity)
            return cached
        }
    }

    /// The tag of the gzip form: the identity tag with `-gzip` inside the quotes (as Apache's mod_deflate
    /// does), so the two representations never share a strong validator.
    package var gzipTag: String {
        ContentNegotiation.gzipTag(etag)
    }
}
