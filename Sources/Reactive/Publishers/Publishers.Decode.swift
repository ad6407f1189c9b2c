extension Publishers {
    /// A publisher that decodes elements received from an upstream publisher, using a given decoder.
    public struct Decode<Upstream: Publisher, Output: Decodable, Coder: TopLevelDecoder>: Publisher
    where Upstream.Output == Coder.Input {
        /// A decoding error, or the upstream's failure.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        private let decoder: Coder

        /// Creates a publisher that decodes elements from the upstream publisher.
        public init(upstream: Upstream, decoder: Coder) {
            self.upstream = upstream
            self.decoder = decoder
        }

        /// Attaches the subscriber through a decoding inner subscriber; a decoding error fails the stream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let decoder = decoder
            upstream.subscribe(
                subscriber, name: "Decode", strictness: .tolerantPassingEarlyCompletion,
                mirror: coderMirror(downstream: subscriber),
                tryStep: { input in .catching { .emit(try decoder.decode(Output.self, from: input)) } })
        }
    }

    /// A publisher that encodes elements received from an upstream publisher, using a given encoder.
    public struct Encode<Upstream: Publisher, Coder: TopLevelEncoder>: Publisher where Upstream.Output: Encodable {
        /// An encoding error, or the upstream's failure.
        public typealias Failure = any Error
        /// The encoder's output.
        public typealias Output = Coder.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        private let encoder: Coder

        /// Creates a publisher that encodes elements from the upstream publisher.
        public init(upstream: Upstream, encoder: Coder) {
            self.upstream = upstream
            self.encoder = encoder
        }

        /// Attaches the subscriber through an encoding inner subscriber; an encoding error fails the stream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let encoder = encoder
            upstream.subscribe(
                subscriber, name: "Encode", strictness: .tolerantPassingEarlyCompletion,
                mirror: coderMirror(downstream: subscriber),
                tryStep: { input in .catching { .emit(try encoder.encode(input)) } })
        }
    }
}

extension Publisher {
    /// Decodes the output from the upstream using a specified decoder.
    ///
    /// ```swift
    /// dataTask.map(\.data).decode(type: [AlbumModel].self, decoder: JSONDecoder())
    /// ```
    public func decode<Item: Decodable, Coder: TopLevelDecoder>(
        type: Item.Type, decoder: Coder
    ) -> Publishers.Decode<Self, Item, Coder> where Output == Coder.Input {
        Publishers.Decode(upstream: self, decoder: decoder)
    }
}

extension Publisher where Output: Encodable {
    /// Encodes the output from upstream using a specified encoder.
    ///
    /// ```swift
    /// Just(post).encode(encoder: JSONEncoder())
    /// ```
    public func encode<Coder: TopLevelEncoder>(encoder: Coder) -> Publishers.Encode<Self, Coder> {
        Publishers.Encode(upstream: self, encoder: encoder)
    }
}

/// Combine's mirror of the `encode` and `decode` subscribers: the downstream, whether the upstream has ended,
/// and its subscription.
private func coderMirror(downstream: Any) -> (SubscriptionStatus) -> [Mirror.Child] {
    { status in
        let finished: Bool = if case .terminal = status { true } else { false }
        return [
            ("downstream", downstream), ("finished", finished), ("upstreamSubscription", status.subscription as Any),
        ]
    }
}
