import Domain
package import HTTP

/// A task-list refusal as the contract's status: 422 for the title rule and the todo limit, 404 for an unknown id, 503 when
/// the store could not commit (nothing changed).
extension TodoError: HTTPResponseError {
    package var status: Int {
        switch self {
        case .titleTooShort, .titleTooLong, .titleInvalid, .tooManyTodos: HTTPStatus.unprocessableContent
        case .notFound: HTTPStatus.notFound
        case .storage, .unavailable, .busy: HTTPStatus.serviceUnavailable
        }
    }

    /// `Retry-After: 1` when writes are queued up to the bound: the queue drains within a second or so.
    package var headers: HTTPHeaders {
        if case .busy = self { return ["Retry-After": "1"] }
        return [:]
    }
}
