import Domain
package import HTTP

/// A task-list refusal as the contract's status: 422 for the title rule, the todo limit and a reused key, 404 for an unknown
/// id, 503 when the store could not commit (nothing changed), 504 when the outcome is unknown (it may have changed).
extension TodoError: HTTPResponseError {
    package var status: Int {
        switch self {
        case .titleTooShort, .titleTooLong, .titleInvalid, .tooManyTodos, .keyReused: HTTPStatus.unprocessableContent
        case .notFound: HTTPStatus.notFound
        case .storage, .unavailable, .busy: HTTPStatus.serviceUnavailable
        case .outcomeUnknown: HTTPStatus.gatewayTimeout
        }
    }

    /// `Retry-After: 1` when writes are queued up to the bound: the queue drains within a second or so; the
    /// key to send the write again with when its outcome is unknown.
    package var headers: HTTPHeaders {
        switch self {
        case .busy: ["Retry-After": "1"]
        case .outcomeUnknown(let key): ["Idempotency-Key": key]
        default: [:]
        }
    }
}
