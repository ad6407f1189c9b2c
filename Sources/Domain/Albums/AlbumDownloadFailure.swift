/// Why a selected image did not arrive, in words a person understands (the `reason` of a failed selection).
package enum AlbumDownloadFailure: Error, Equatable, Sendable {
    /// The server answered with a status outside 2xx.
    case status(Int)
    /// The bytes are not a PNG, JPEG, GIF or WebP image; `contentType` is what the server called them.
    case notAnImage(contentType: String?)
    /// The transfer failed (its reason is the loader's).
    case transfer(LoadFailure)

    /// Classifies a loader failure.
    package init(_ error: LoadFailure) {
        self = .transfer(error)
    }

    /// A sentence for a person, e.g. "the host could not be reached".
    package var reason: String {
        switch self {
        case .status(let code):
            "the image server answered \(code) instead of the image"
        case .notAnImage(let contentType?):
            "not an image (\(contentType)); only PNG, JPEG, GIF and WebP are shown"
        case .notAnImage(nil):
            "not an image; only PNG, JPEG, GIF and WebP are shown"
        case .transfer(let failure):
            failure.reason
        }
    }
}
