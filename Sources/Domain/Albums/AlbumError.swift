/// Why the album view model refused a selection; the server maps it to a status (404, 422).
package enum AlbumError: Error, Equatable, Sendable {
    /// No photo has this id.
    case unknownPhoto(id: Int)
    /// The selection names no URL.
    case emptyURL
    /// The selection is neither an http(s) URL nor a path on this server.
    case invalidURL(String)

    /// The machine-readable code of the contract's error body.
    package var code: String {
        switch self {
        case .unknownPhoto: "not_found"
        case .emptyURL, .invalidURL: "invalid_url"
        }
    }

    /// A sentence for a person.
    package var message: String {
        switch self {
        case .unknownPhoto(let id): "There is no photo with id \(id)."
        case .emptyURL: "The selection needs a non-empty url."
        case .invalidURL(let url):
            "'\(url.prefix(200))' is not an image address: give an http(s) URL or a path on this server."
        }
    }
}
