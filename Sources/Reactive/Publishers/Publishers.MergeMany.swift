extension Publishers {
    /// A publisher created by applying the merge function to an arbitrary number of upstream publishers.
    public struct MergeMany<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The array of upstream publishers that this publisher merges together.
        public let publishers: [Upstream]

        /// Creates a publisher created by applying the merge function to an arbitrary number of upstream publishers.
        public init(_ upstream: Upstream...) { publishers = upstream }

        /// Creates a publisher created by applying the merge function to a sequence of upstream publishers.
        public init<S: Swift.Sequence>(_ upstream: S) where Upstream == S.Element { publishers = Array(upstream) }

        /// Attaches the subscriber to all upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            Publishers.Sequence<[Upstream], Failure>(sequence: publishers).subscribe(
                FlatMapOuter<Upstream, Upstream, S>(
                    downstream: subscriber, maxPublishers: .unlimited, transform: { $0 }, combineName: "Merge"))
        }

        /// Merges one more publisher in.
        public func merge(with other: Upstream) -> MergeMany<Upstream> { MergeMany(publishers + [other]) }
    }

    /// A publisher created by applying the merge function to two upstream publishers.
    public struct Merge<A: Publisher, B: Publisher>: Publisher where A.Failure == B.Failure, A.Output == B.Output {
        /// The kind of values published by this publisher.
        public typealias Output = A.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A
        /// A second publisher to merge.
        public let b: B

        /// Creates a publisher created by applying the merge function to two upstream publishers.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Attaches the subscriber to both upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            MergeMany(a.eraseToAnyPublisher(), b.eraseToAnyPublisher()).subscribe(subscriber)
        }
    }

    /// A publisher created by applying the merge function to three upstream publishers.
    public struct Merge3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Failure == B.Failure, A.Output == B.Output, A.Failure == C.Failure, A.Output == C.Output {
        /// The kind of values published by this publisher.
        public typealias Output = A.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = A.Failure

        /// A publisher to merge.
        public let a: A
        /// A second publisher to merge.
        public let b: B
        /// A third publisher to merge.
        public let c: C

        /// Creates a publisher created by applying the merge function to three upstream publishers.
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Attaches the subscriber to all upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            MergeMany(a.eraseToAnyPublisher(), b.eraseToAnyPublisher(), c.eraseToAnyPublisher()).subscribe(subscriber)
        }
    }
}

extension Publisher {
    /// Combines elements from this publisher with those from another publisher of the same type, delivering an
    /// interleaved sequence of elements.
    ///
    /// ```swift
    /// taps.merge(with: keys)
    /// ```
    public func merge<P: Publisher>(with other: P) -> Publishers.Merge<Self, P>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Merge(self, other)
    }

    /// Combines elements from this publisher with those from two other publishers, delivering an interleaved
    /// sequence of elements.
    ///
    /// ```swift
    /// a.merge(with: b, c)
    /// ```
    public func merge<B: Publisher, C: Publisher>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
    where Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output {
        Publishers.Merge3(self, b, c)
    }

    /// Combines elements from this publisher with those from other publishers of the same type.
    ///
    /// ```swift
    /// first.merge(with: second, third, fourth)
    /// ```
    public func merge(with other: Self...) -> Publishers.MergeMany<Self> {
        Publishers.MergeMany([self] + other)
    }
}
