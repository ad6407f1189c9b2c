extension Publishers {
    /// A publisher created by applying the merge function to four upstream publishers.
    public struct Merge4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
    where
        A.Failure == B.Failure, A.Output == B.Output, A.Failure == C.Failure, A.Output == C.Output,
        A.Failure == D.Failure, A.Output == D.Output
    {
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
        /// A fourth publisher to merge.
        public let d: D

        /// Creates a publisher created by applying the merge function to four upstream publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Attaches the subscriber to all upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            MergeMany([
                a.eraseToAnyPublisher(), b.eraseToAnyPublisher(), c.eraseToAnyPublisher(), d.eraseToAnyPublisher(),
            ]).subscribe(subscriber)
        }
    }

    /// A publisher created by applying the merge function to five upstream publishers.
    public struct Merge5<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher>: Publisher
    where
        A.Failure == B.Failure, A.Output == B.Output, A.Failure == C.Failure, A.Output == C.Output,
        A.Failure == D.Failure, A.Output == D.Output, A.Failure == E.Failure, A.Output == E.Output
    {
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
        /// A fourth publisher to merge.
        public let d: D
        /// A fifth publisher to merge.
        public let e: E

        /// Creates a publisher created by applying the merge function to five upstream publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
        }

        /// Attaches the subscriber to all upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            MergeMany([
                a.eraseToAnyPublisher(), b.eraseToAnyPublisher(), c.eraseToAnyPublisher(), d.eraseToAnyPublisher(),
                e.eraseToAnyPublisher(),
            ]).subscribe(subscriber)
        }
    }

    /// A publisher created by applying the merge function to six upstream publishers.
    public struct Merge6<A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher>: Publisher
    where
        A.Failure == B.Failure, A.Output == B.Output, A.Failure == C.Failure, A.Output == C.Output,
        A.Failure == D.Failure, A.Output == D.Output, A.Failure == E.Failure, A.Output == E.Output,
        A.Failure == F.Failure, A.Output == F.Output
    {
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
        /// A fourth publisher to merge.
        public let d: D
        /// A fifth publisher to merge.
        public let e: E
        /// A sixth publisher to merge.
        public let f: F

        /// Creates a publisher created by applying the merge function to six upstream publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
        }

        /// Attaches the subscriber to all upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            MergeMany([
                a.eraseToAnyPublisher(), b.eraseToAnyPublisher(), c.eraseToAnyPublisher(), d.eraseToAnyPublisher(),
                e.eraseToAnyPublisher(), f.eraseToAnyPublisher(),
            ]).subscribe(subscriber)
        }
    }

    /// A publisher created by applying the merge function to seven upstream publishers.
    public struct Merge7<
        A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher
    >: Publisher
    where
        A.Failure == B.Failure, A.Output == B.Output, A.Failure == C.Failure, A.Output == C.Output,
        A.Failure == D.Failure, A.Output == D.Output, A.Failure == E.Failure, A.Output == E.Output,
        A.Failure == F.Failure, A.Output == F.Output, A.Failure == G.Failure, A.Output == G.Output
    {
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
        /// A fourth publisher to merge.
        public let d: D
        /// A fifth publisher to merge.
        public let e: E
        /// A sixth publisher to merge.
        public let f: F
        /// A seventh publisher to merge.
        public let g: G

        /// Creates a publisher created by applying the merge function to seven upstream publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
        }

        /// Attaches the subscriber to all upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            MergeMany([
                a.eraseToAnyPublisher(), b.eraseToAnyPublisher(), c.eraseToAnyPublisher(), d.eraseToAnyPublisher(),
                e.eraseToAnyPublisher(), f.eraseToAnyPublisher(), g.eraseToAnyPublisher(),
            ]).subscribe(subscriber)
        }
    }

    /// A publisher created by applying the merge function to eight upstream publishers.
    public struct Merge8<
        A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher
    >: Publisher
    where
        A.Failure == B.Failure, A.Output == B.Output, A.Failure == C.Failure, A.Output == C.Output,
        A.Failure == D.Failure, A.Output == D.Output, A.Failure == E.Failure, A.Output == E.Output,
        A.Failure == F.Failure, A.Output == F.Output, A.Failure == G.Failure, A.Output == G.Output,
        A.Failure == H.Failure, A.Output == H.Output
    {
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
        /// A fourth publisher to merge.
        public let d: D
        /// A fifth publisher to merge.
        public let e: E
        /// A sixth publisher to merge.
        public let f: F
        /// A seventh publisher to merge.
        public let g: G
        /// An eighth publisher to merge.
        public let h: H

        /// Creates a publisher created by applying the merge function to eight upstream publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
            self.e = e
            self.f = f
            self.g = g
            self.h = h
        }

        /// Attaches the subscriber to all upstream publishers, interleaving their elements as they arrive.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            MergeMany([
                a.eraseToAnyPublisher(), b.eraseToAnyPublisher(), c.eraseToAnyPublisher(), d.eraseToAnyPublisher(),
                e.eraseToAnyPublisher(), f.eraseToAnyPublisher(), g.eraseToAnyPublisher(), h.eraseToAnyPublisher(),
            ]).subscribe(subscriber)
        }
    }
}

extension Publisher {
    /// Combines elements from this publisher with those from three other publishers, delivering an interleaved
    /// sequence of elements.
    ///
    /// ```swift
    /// a.merge(with: b, c, d)
    /// ```
    public func merge<B: Publisher, C: Publisher, D: Publisher>(with b: B, _ c: C, _ d: D)
        -> Publishers.Merge4<Self, B, C, D>
    where
        Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, B.Failure == D.Failure,
        B.Output == D.Output
    {
        Publishers.Merge4(self, b, c, d)
    }

    /// Combines elements from this publisher with those from four other publishers, delivering an interleaved
    /// sequence of elements.
    ///
    /// ```swift
    /// a.merge(with: b, c, d, e)
    /// ```
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher>(with b: B, _ c: C, _ d: D, _ e: E)
        -> Publishers.Merge5<Self, B, C, D, E>
    where
        Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, B.Failure == D.Failure,
        B.Output == D.Output, B.Failure == E.Failure, B.Output == E.Output
    {
        Publishers.Merge5(self, b, c, d, e)
    }

    /// Combines elements from this publisher with those from five other publishers, delivering an interleaved
    /// sequence of elements.
    ///
    /// ```swift
    /// a.merge(with: b, c, d, e, f)
    /// ```
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher>(
        with b: B, _ c: C, _ d: D, _ e: E, _ f: F
    ) -> Publishers.Merge6<Self, B, C, D, E, F>
    where
        Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, B.Failure == D.Failure,
        B.Output == D.Output, B.Failure == E.Failure, B.Output == E.Output, B.Failure == F.Failure, B.Output == F.Output
    {
        Publishers.Merge6(self, b, c, d, e, f)
    }

    /// Combines elements from this publisher with those from six other publishers, delivering an interleaved
    /// sequence of elements.
    ///
    /// ```swift
    /// a.merge(with: b, c, d, e, f, g)
    /// ```
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher>(
        with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
    ) -> Publishers.Merge7<Self, B, C, D, E, F, G>
    where
        Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, B.Failure == D.Failure,
        B.Output == D.Output, B.Failure == E.Failure, B.Output == E.Output, B.Failure == F.Failure,
        B.Output == F.Output, B.Failure == G.Failure, B.Output == G.Output
    {
        Publishers.Merge7(self, b, c, d, e, f, g)
    }

    /// Combines elements from this publisher with those from seven other publishers, delivering an interleaved
    /// sequence of elements.
    ///
    /// ```swift
    /// a.merge(with: b, c, d, e, f, g, h)
    /// ```
    public func merge<B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher>(
        with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
    ) -> Publishers.Merge8<Self, B, C, D, E, F, G, H>
    where
        Failure == B.Failure, Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, B.Failure == D.Failure,
        B.Output == D.Output, B.Failure == E.Failure, B.Output == E.Output, B.Failure == F.Failure,
        B.Output == F.Output, B.Failure == G.Failure, B.Output == G.Output, B.Failure == H.Failure, B.Output == H.Output
    {
        Publishers.Merge8(self, b, c, d, e, f, g, h)
    }
}
