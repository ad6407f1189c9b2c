import Domain
import HTTP

/// An album selection refusal: 404 for an unknown photo, 422 for an empty URL.
extension AlbumError: HTTPResponseError {
    package var status: Int {
        switch self {
        case .unknownPhoto: HTTPStatus.notFound
        case .emptyURL: HTTPStatus.unprocessableContent
        }
    }
}
