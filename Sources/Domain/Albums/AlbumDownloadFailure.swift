package import Foundation

/// Why a selected image did not arrive, in words a person understands (the `reason` of a failed selection).
package enum AlbumDownloadFailure: Error, Equatable, Sendable {
    /// The server answered with a status outside 2xx.
    case status(Int)
    /// The bytes are not a PNG, JPEG, GIF or WebP image; `contentType` is what the server called them.
    case notAnImage(contentType: String?)
    /// The transfer failed.
    case transfer(URLError.Code)

    /// Classifies a loader failure.
    package init(_ error: URLError) {
        self = .transfer(error.code)
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
        case .transfer(let code):
            switch code {
            case .timedOut: "the download timed out"
            case .cannotFindHost, .dnsLookupFailed: "the host name could not be found"
            case .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet:
                "the host could not be reached"
            case .dataLengthExceedsMaximum: "the image is larger than 16 MiB"
            case .httpTooManyRedirects: "too many redirects"
            case .unsupportedURL, .badURL: "the URL is not an http or https address"
            case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
                .serverCertificateHasUnknownRoot, .secureConnectionFailed:
                "the image server's certificate was refused"
            default: "the download failed"
            }
        }
    }
}
