/// An error that knows its answer, as hummingbird's `HTTPResponseError`: the status and the contract's
/// `{"error": code, "message": text}`. A handler throws it as is and the router renders it, so no call site
/// converts errors to statuses.
///
/// ```swift
/// extension TodoError: HTTPResponseError {
///     var status: Int { self == .titleTooShort ? HTTPStatus.unprocessableContent : HTTPStatus.notFound }
/// }
/// ```
package protocol HTTPResponseError: Error {
    /// The HTTP status code of the answer.
    var status: Int { get }
    /// A short machine-readable code (`"not_found"`, `"title_too_short"`).
    var code: String { get }
    /// A sentence for a person.
    var message: String { get }
    /// Extra header fields of the answer (for example `Allow` on a 405).
    var headers: HTTPHeaders { get }
}

extension HTTPResponseError {
    /// No extra header fields.
    package var headers: HTTPHeaders { [:] }
}

extension HTTPError: HTTPResponseError {
    /// The answer of any `HTTPResponseError`, as a value.
    package init(_ error: some HTTPResponseError) {
        self.init(error.status, error.code, error.message, headers: error.headers)
    }
}
