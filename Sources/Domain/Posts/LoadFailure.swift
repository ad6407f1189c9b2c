/// Why a `DataLoader` GET brought no answer: its kind (what `NetworkError` sorts by) and the transport's
/// words for it (what a failed album selection shows).
///
///     LoadFailure(.other, "the certificate of images.test is not trusted (it has expired)")
package struct LoadFailure: Error, Equatable, Sendable {
    /// What the seeds' error handling tells apart.
    package enum Kind: Equatable, Sendable {
        /// Not an `http` or `https` URL with a host.
        case invalidURL
        /// No answer within the loader's time limit.
        case timedOut
        /// Anything else: unreachable, refused certificate, body too large, connection lost.
        case other
    }

    package let kind: Kind
    /// What went wrong, for a person ("the host could not be reached").
    package let reason: String

    package init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }
}
