extension Subscribers {
    /// A signal that a publisher doesn't produce additional elements, either due to normal completion
    /// or an error.
    ///
    /// ```swift
    /// if case .failure(let error) = completion { print(error) }
    /// ```
    @frozen
    public enum Completion<Failure: Error> {
        /// The publisher finished normally.
        case finished
        /// The publisher stopped publishing due to the indicated error.
        case failure(Failure)
    }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Hashable where Failure: Hashable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

extension Subscribers.Completion {
    /// Maps the failure of a completion, keeping `.finished`.
    @inlinable
    func mapFailure<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> Subscribers.Completion<NewFailure> {
        switch self {
        case .finished: .finished
        case .failure(let error): .failure(transform(error))
        }
    }

    /// This completion with its failure type erased to `any Error`.
    @inlinable
    var eraseError: Subscribers.Completion<any Error> {
        switch self {
        case .finished: .finished
        case .failure(let error): .failure(error)
        }
    }
}

/// Combine's keys: `{"success": true}` when finished, `{"success": false, "error": …}` on failure.
private enum CompletionCodingKeys: String, CodingKey {
    case success
    case error
}

extension Subscribers.Completion: Encodable where Failure: Encodable {
    /// Encodes the completion as Combine does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CompletionCodingKeys.self)
        switch self {
        case .finished:
            try container.encode(true, forKey: .success)
        case .failure(let error):
            try container.encode(false, forKey: .success)
            try container.encode(error, forKey: .error)
        }
    }
}

extension Subscribers.Completion: Decodable where Failure: Decodable {
    /// Decodes a completion encoded as Combine does.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CompletionCodingKeys.self)
        if try container.decode(Bool.self, forKey: .success) {
            self = .finished
        } else {
            self = .failure(try container.decode(Failure.self, forKey: .error))
        }
    }
}
