/// Why the task list refused an input; the server maps each case to a status (422, 404). Storage's
/// own failures are `JournalError` (module Storage).
package enum TodoError: Error, Equatable, Sendable {
    /// The trimmed title has 3 characters or fewer (seed 004's `filter { $0.count > 3 }`).
    case titleTooShort
    /// The trimmed title has more than `TodoTitle.maximumLength` characters.
    case titleTooLong
    /// The title holds a control character (NUL, an escape, a line break inside it): a title is one line of text.
    case titleInvalid
    /// The list already holds `limit` todos, the most this server keeps (`--max-todos`).
    case tooManyTodos(limit: Int)
    /// No todo has this id.
    case notFound(id: Int)

    /// The machine-readable code of the contract's error body, e.g. `title_too_short`.
    package var code: String {
        switch self {
        case .titleTooShort: "title_too_short"
        case .titleTooLong: "title_too_long"
        case .titleInvalid: "title_invalid"
        case .tooManyTodos: "too_many_todos"
        case .notFound: "not_found"
        }
    }

    /// A sentence for a person.
    package var message: String {
        switch self {
        case .titleTooShort:
            "A title needs more than \(TodoTitle.minimumLength - 1) characters after trimming white space."
        case .titleTooLong:
            "A title may have at most \(TodoTitle.maximumLength) characters after trimming white space."
        case .titleInvalid:
            "A title may not hold control characters (such as NUL, tab or a line break) after trimming white space."
        case .tooManyTodos(let limit):
            "The list already holds \(limit) todos, the most this server keeps; delete some before adding more."
        case .notFound(let id): "There is no todo with id \(id)."
        }
    }
}
