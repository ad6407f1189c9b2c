import Domain
import HTTP

/// A task-list refusal as the contract's status: 422 for the title rule and the todo limit, 404 for an
/// unknown id. Storage's failures are `JournalError`'s.
extension TodoError: HTTPResponseError {
    package var status: Int {
        switch self {
        case .titleTooShort, .titleTooLong, .titleInvalid, .tooManyTodos: HTTPStatus.unprocessableContent
        case .notFound: HTTPStatus.notFound
        }
    }
}
