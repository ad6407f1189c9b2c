import Domain
import HTTP

/// An album selection refusal: 404 for an unknown photo, 422 for an empty or unusable URL.
extension AlbumError: HTTPResponseError {
    package var status: Int {
        switch self {
        case .unknownPhoto: HTTPStatus.notFound
        case .emptyURL, .invalidURL: HTTPStatus.unprocessableContent
        }
    }
}
