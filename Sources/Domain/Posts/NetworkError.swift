import Foundation

/// Why a `NetworkManager` load failed: seed 002's cases plus `decodingError` and `timeout`.
///
/// The raw value is the contract's error code (`{"error": "responseError", …}`).
package enum NetworkError: String, Error, Equatable, Sendable {
    /// The base URL and endpoint make no URL.
    case invalidURL
    /// The upstream answered with a status outside 200...299.
    case responseError
    /// The body is not the JSON the endpoint promises.
    case decodingError
    /// The upstream did not answer in time.
    case timeout
    /// Anything else: unreachable host, connection lost, refused redirect.
    case unknown

    /// Sorts any failure of the pipeline into a case, as the seed's `receiveCompletion` does.
    package init(_ error: any Error) {
        switch error {
        case let error as NetworkError: self = error
        case is DecodingError: self = .decodingError
        case let failure as LoadFailure where failure.kind == .timedOut: self = .timeout
        case let failure as LoadFailure where failure.kind == .invalidURL: self = .invalidURL
        default: self = .unknown
        }
    }
}

extension NetworkError: LocalizedError {
    /// The seed's messages, for a person.
    package var errorDescription: String? {
        switch self {
        case .invalidURL: "Invalid URL"
        case .responseError: "Unexpected status code"
        case .decodingError: "The upstream's answer could not be decoded"
        case .timeout: "The upstream did not answer in time"
        case .unknown: "Unknown error"
        }
    }
}
