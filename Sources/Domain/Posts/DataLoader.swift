package import Foundation
package import Reactive

/// Loads the bytes behind a URL: the shape of `URLSession.dataTaskPublisher(for:)`, so the seeds'
/// pipelines read as they do on iOS while `Domain` knows nothing of the transport.
///
/// The server provides the libevent client; tests provide fakes. Cancelling the subscription cancels
/// the download.
///
///     loader.dataTaskPublisher(for: url)
///         .map(\.data)
///         .sink(receiveCompletion: { _ in }, receiveValue: { print($0.count) })
package protocol DataLoader: Sendable {
    /// One GET of `url`: a single `(data, response)` value then `.finished`, or a `LoadFailure`.
    func dataTaskPublisher(for url: URL) -> AnyPublisher<(data: Data, response: LoadResponse), LoadFailure>
}
