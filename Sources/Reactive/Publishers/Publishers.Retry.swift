extension Publishers {
    /// A publisher that attempts to recreate its subscription to a failed upstream publisher.
    public struct Retry<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum number of retry attempts to perform; nil retries indefinitely.
        public let retries: Int?

        /// Creates a publisher that attempts to recreate its subscription to a failed upstream publisher.
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        /// Attaches the subscriber; each failure resubscribes to the upstream while retries remain.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let chain = ChainInner(name: "Retry", downstream: subscriber)
            Retry.attempt(upstream, chain: chain, remaining: retries)
        }

        private static func attempt<S: Subscriber>(_ upstream: Upstream, chain: ChainInner<S>, remaining: Int?)
        where S.Input == Output, S.Failure == Failure {
            chain.link(upstream) { completion in
                guard case .failure = completion, remaining.map({ $0 > 0 }) ?? true else {
                    return .complete(completion)
                }
                return .next { attempt(upstream, chain: chain, remaining: remaining.map { $0 - 1 }) }
            }
        }
    }
}

extension Publisher {
    /// Attempts to recreate a failed subscription with the upstream publisher up to the number of times you
    /// specify.
    ///
    /// ```swift
    /// fetch.retry(3).replaceError(with: [])
    /// ```
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}
