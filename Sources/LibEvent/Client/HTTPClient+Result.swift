package import Foundation

extension HTTPClient {
    /// The head of an answer: the URL that answered (after redirects), its status and header fields.
    package struct Response: Sendable, Equatable {
        package let url: URL
        package let statusCode: Int
        /// As received; a repeated field is joined with ", " (RFC 9110 §5.3).
        package let headerFields: [String: String]

        /// The value of the field `name`, compared without regard to case.
        package func value(forHTTPHeaderField name: String) -> String? {
            headerFields.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// Why a fetch brought no answer.
    package enum Failure: Error, Equatable, Sendable {
        /// Not an `http` or `https` URL.
        case unsupportedURL
        /// No host, or a port out of range.
        case badURL
        /// No whole answer within `timeout`.
        case timedOut
        /// The connection could not be made (refused, unreachable, name not resolved).
        case cannotConnect
        /// The connection ended before the whole answer.
        case connectionLost
        /// The answer is not HTTP that evhttp reads, or a redirect without a usable `Location`.
        case badResponse
        /// The body passed `limit` bytes; reading stopped there and the connection was closed.
        case tooLarge(limit: Int)
        /// More than `maxRedirects` redirects.
        case tooManyRedirects
        /// The https server's certificate did not verify for `host` (`detail`: why, for a person).
        case untrustedCertificate(host: String, detail: String)
        /// The TLS handshake with `host` failed otherwise (`detail`: OpenSSL's reason).
        case secureConnectionFailed(host: String, detail: String)
    }
}

extension HTTPClient.Failure: CustomStringConvertible {
    /// What went wrong, for a person (a failed album selection shows it as its reason).
    package var description: String {
        switch self {
        case .unsupportedURL, .badURL: "the URL is not an http or https address"
        case .timedOut: "the download timed out"
        case .cannotConnect: "the host could not be reached"
        case .connectionLost: "the connection was lost before the whole answer arrived"
        case .badResponse: "the server's answer is not HTTP that can be read"
        case .tooLarge(let limit):
            "the download is larger than \(limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes")"
        case .tooManyRedirects: "too many redirects"
        case .untrustedCertificate(let host, let detail): "the certificate of \(host) is not trusted (\(detail))"
        case .secureConnectionFailed(let host, let detail): "no secure connection to \(host) (\(detail))"
        }
    }
}
