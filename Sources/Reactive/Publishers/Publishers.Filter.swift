extension Publishers {
    /// A publisher that republishes all elements that match a provided closure.
    public struct Filter<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that indicates whether to republish an element.
        public let isIncluded: (Upstream.Output) -> Bool

        /// Creates a publisher that republishes all elements that match a provided closure.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches the subscriber through a filtering inner subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: FilterInner(downstream: subscriber, isIncluded: isIncluded))
        }
    }
}

extension Publisher {
    /// Republishes all elements that match a provided closure.
    ///
    /// ```swift
    /// names.filter { $0.count > 3 }   // drops "Tea"
    /// ```
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
        Publishers.Filter(upstream: self, isIncluded: isIncluded)
    }
}

/// A dropped value asks the upstream for one more, so the downstream's demand stays whole.
@usableFromInline
struct FilterInner<Downstream: Subscriber>: Subscriber, CombineDescribed {
    /// Combine's name for this subscriber.
    @usableFromInline var combineName: String { "Filter" }
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure
    @usableFromInline let downstream: Downstream
    @usableFromInline let isIncluded: (Downstream.Input) -> Bool
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, isIncluded: @escaping (Downstream.Input) -> Bool) {
        self.downstream = downstream
        self.isIncluded = isIncluded
    }

    @inlinable
    func receive(subscription: any Subscription) {
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        isIncluded(input) ? downstream.receive(input) : .max(1)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
}

extension Publishers.Filter {
    /// Fuses two predicates into one `Filter` of the same upstream, as Combine does.
    ///
    /// ```swift
    /// numbers.filter { $0 > 0 }.filter { $0.isMultiple(of: 2) }   // one Filter of `numbers`
    /// ```
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Upstream> {
        let first = self.isIncluded
        return Publishers.Filter(upstream: upstream) { first($0) && isIncluded($0) }
    }

    /// Fuses the predicate with a throwing one into one `TryFilter` of the same upstream.
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}
