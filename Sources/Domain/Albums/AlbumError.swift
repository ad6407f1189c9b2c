/// Why the album view model refused a selection; the server maps it to a status (404, 422).
package enum AlbumError: Error, Equatable, Sendable {
    /// No photo has this id.
    case unknownPhoto(id: Int)
    /// The selection names no URL.
    case emptyURL

    /// The machine-readable code of the contract's error body.
    package var code: String {
        switch self {
        case .unknownPhoto: "not_found"
        case .emptyURL: "invalid_url"
        }
    }

    /// A sentence for a person.
    package var message: String {
        switch self {
        case .unknownPhoto(let id): "There is no photo with id \(id)."
        case .emptyURL: "The selection needs a non-empty url."
        }
    }
}
