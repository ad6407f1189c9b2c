extension Publishers {
    /// A publisher that republishes all elements that match a provided error-throwing closure.
    public struct TryFilter<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = any Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// An error-throwing closure that indicates whether to republish an element.
        public let isIncluded: (Upstream.Output) throws -> Bool

        /// Creates the publisher.
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let isIncluded = isIncluded
            upstream.subscribe(
                subscriber, name: "TryFilter", strictness: .strict,
                tryStep: { input in .catching { try isIncluded(input) ? .emit(input) : .drop } })
        }
    }
}

extension Publisher {
    /// Republishes all elements that match a provided error-throwing closure.
    ///
    /// ```swift
    /// titles.tryFilter { title in guard !title.isEmpty else { throw EmptyTitle() }; return title.count > 3 }
    /// ```
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Self> {
        Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
    }
}

extension Publishers.TryFilter {
    /// Fuses the throwing predicate with another into one `TryFilter` of the same upstream, as Combine does.
    ///
    /// ```swift
    /// numbers.tryFilter(check).filter { $0 > 0 }   // one TryFilter of `numbers`
    /// ```
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }

    /// Fuses two throwing predicates into one `TryFilter` of the same upstream.
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}
