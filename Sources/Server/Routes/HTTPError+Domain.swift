import Domain
import HTTP

extension HTTPError {
    /// A task-list refusal as the contract's status: 422 for the title rule, 404 for an unknown id, 503 when
    /// the store could not commit.
    init(_ error: TodoError) {
        switch error {
        case .titleTooShort, .titleTooLong: self.init(422, error.code, error.message)
        case .notFound: self.init(404, error.code, error.message)
        case .storage: self.init(503, error.code, error.message)
        }
    }

    /// An album selection refusal: 404 for an unknown photo, 422 for an empty URL.
    init(_ error: AlbumError) {
        switch error {
        case .unknownPhoto: self.init(404, error.code, error.message)
        case .emptyURL: self.init(422, error.code, error.message)
        }
    }

    /// A framework selection refusal: 404 for an unknown name.
    init(_ error: FrameworkError) {
        self.init(404, error.code, error.message)
    }
}
