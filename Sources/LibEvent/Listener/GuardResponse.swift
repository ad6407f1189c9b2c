import HTTP
import Support

/// The answer `ConnectionGuard` writes straight to the socket when it refuses a head or a deadline passes:
/// a whole HTTP/1.1 response that closes the connection, since evhttp is not writing one.
enum GuardResponse {
    /// The response bytes for `error`; without a body for a `HEAD`.
    /// `headers` go after the content type (a refused body's CORS headers).
    static func bytes(_ error: HTTPError, bodyless: Bool, headers: HTTPHeaders = [:]) -> [UInt8] {
        let body = JSONCoding.errorBody(error)
        let reasons = [400: "Bad Request", 408: "Request Timeout", 413: "Payload Too Large", 501: "Not Implemented"]
        let fields = headers.map { "\($0.name): \($0.value)\r\n" }.joined()
        let head =
            "HTTP/1.1 \(error.status) \(reasons[error.status] ?? "Error")\r\nContent-Type: \(Response.jsonContentType)\r\n"
            + fields + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + (bodyless ? [] : body)
    }
}
