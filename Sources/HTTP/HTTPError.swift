/// An error that renders itself as the contract's `{"error": code, "message": text}` body.
///
/// ```swift
/// throw HTTPError(404, "not_found", "no todo with id 7")
/// ```
package struct HTTPError: Error, Sendable, Equatable {
    /// The HTTP status code of the answer.
    package var status: Int
    /// A short machine-readable code (`"not_found"`, `"title_too_short"`).
    package var code: String
    /// A sentence for a person.
    package var message: String
    /// Extra headers for the answer (for example `Allow` on a 405).
    package var headers: HTTPHeaders = [:]

    package init(_ status: Int, _ code: String, _ message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// 400 with a message naming what is wrong.
    package static func badRequest(_ message: String, code: String = "bad_request") -> HTTPError {
        HTTPError(400, code, message)
    }

    /// 404 for an unknown route or id.
    package static func notFound(_ message: String = "no such resource") -> HTTPError {
        HTTPError(404, "not_found", message)
    }

    /// 405 with the `Allow` header listing what the path accepts; `method` is nil for one LiveState does not
    /// know (TRACE, QUERY, …).
    package static func methodNotAllowed(_ method: HTTPMethod?, allowed: [HTTPMethod]) -> HTTPError {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            405, "method_not_allowed", "\(method?.rawValue ?? "this method") is not allowed here; use \(allow)",
            headers: ["Allow": allow])
    }

    /// 413 for a body over the limit.
    package static let payloadTooLarge = HTTPError(413, "payload_too_large", "the request body is larger than 1 MiB")

    /// 415 for a body that is not JSON.
    package static let unsupportedMediaType = HTTPError(
        415, "unsupported_media_type", "the request body must be JSON (Content-Type: application/json)")

    /// 401 for a mutation without the right bearer token.
    package static let unauthorized = HTTPError(
        401, "unauthorized", "this request needs the header Authorization: Bearer <token>",
        headers: ["WWW-Authenticate": "Bearer"])

    /// 403 for a request addressed to a name this server does not answer to (`HostPolicy`: DNS rebinding).
    /// 403 for a write from a web page of another origin (a form on any site can post without a preflight).
    package static let originNotAllowed = HTTPError(
        403, "origin_not_allowed",
        "this write comes from a web page whose origin is neither this server's nor one --cors allows; nothing changed")

    package static let hostNotAllowed = HTTPError(
        403, "host_not_allowed",
        "this server answers only requests addressed to localhost, 127.0.0.1, [::1] or a name in --allowed-hosts")

    /// 400 for a `Host` that is not a host and port (userinfo, a path, whitespace: `HostPolicy.isWellFormed`),
    /// whatever the names allowed; the connection closes, as after any request that is not valid HTTP.
    package static let malformedHost = HTTPError(
        400, "bad_request", "the Host header must be a host name or address and an optional port, nothing else",
        headers: ["Connection": "close"])

    /// 500, never on purpose; the cause is logged, not shown.
    package static let internalError = HTTPError(500, "internal_error", "the server failed to answer; see its log")
}
