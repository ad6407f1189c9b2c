extension Publishers {
    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher with
    /// another publisher.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = NewPublisher.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// A closure that accepts the upstream failure as input and returns a publisher to replace the upstream.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that handles errors from an upstream publisher by replacing it.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber; on failure it is moved over to the handler's publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let handler = handler
            let chain = ChainInner(name: "Catch", downstream: subscriber)
            chain.link(upstream) { completion in
                guard case .failure(let error) = completion else { return .complete(.finished) }
                return .next { chain.link(handler(error)) { .complete($0) } }
            }
        }
    }

    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher with
    /// another publisher or producing a new error.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// Any error: the handler may throw.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// An error-throwing closure that returns a publisher to replace the upstream.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that handles errors by replacing the upstream or throwing a new error.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber; on failure it is moved over to the handler's publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let handler = handler
            let chain = ChainInner(name: "TryCatch", downstream: subscriber)
            chain.link(upstream) { completion in
                guard case .failure(let error) = completion else { return .complete(.finished) }
                do {
                    let replacement = try handler(error)
                    return .next { chain.link(replacement) { .complete($0.eraseError) } }
                } catch {
                    return .complete(.failure(error))
                }
            }
        }
    }
}

extension Publisher {
    /// Handles errors from an upstream publisher by replacing it with another publisher.
    ///
    /// ```swift
    /// fetch.catch { _ in Just([]) }
    /// ```
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
    where Output == P.Output {
        Publishers.Catch(upstream: self, handler: handler)
    }

    /// Handles errors from an upstream publisher by either replacing it with another publisher or throwing a
    /// new error.
    ///
    /// ```swift
    /// fetch.tryCatch { error in guard retryable(error) else { throw error }; return fetch }
    /// ```
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
    where Output == P.Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}
