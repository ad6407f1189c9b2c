import HTTP

/// The checks of one request head (and of its chunked body) while the connection guard reads them: made
/// at the head's first byte and dropped when the guard starts on the next head, so a connection waiting
/// between requests, or held by a stream, keeps none of it.
final class HeadReading {
    /// The raw-head check being fed.
    var head: RawRequestCheck
    /// The head once complete.
    var completed: RawRequestCheck.Head?
    /// The chunked body's check, while one is read.
    var chunks: ChunkedBodyCheck?
    /// The CORS headers of a 413 for a chunked body over the limit, read with the head (evhttp takes the head
    /// out of the buffer before the chunks arrive).
    var tooLargeHeaders: HTTPHeaders = [:]

    init(limit: Int) {
        head = RawRequestCheck(limit: limit)
    }
}
