package import Foundation

/// The head of an answer to a `DataLoader` GET: what the seeds read from `HTTPURLResponse`, without
/// FoundationNetworking.
///
///     let response = LoadResponse(url: url, statusCode: 200, headerFields: ["Content-Type": "image/png"])
///     response.value(forHTTPHeaderField: "content-type")  // "image/png"
package struct LoadResponse: Sendable, Equatable {
    /// The URL that answered (the last one, after redirects).
    package let url: URL
    /// The status code, e.g. 200.
    package let statusCode: Int
    /// The header fields as received; a repeated field is joined with ", ".
    package let headerFields: [String: String]

    package init(url: URL, statusCode: Int, headerFields: [String: String] = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headerFields = headerFields
    }

    /// The value of the header field `name`, compared without regard to case (as `HTTPURLResponse` does).
    package func value(forHTTPHeaderField name: String) -> String? {
        headerFields.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
