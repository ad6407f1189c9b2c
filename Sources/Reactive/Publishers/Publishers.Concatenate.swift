extension Publishers {
    /// A publisher that emits all of one publisher's elements before those from another publisher.
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
    where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Suffix.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Suffix.Failure

        /// The publisher to republish, in its entirety, before republishing elements from suffix.
        public let prefix: Prefix
        /// The publisher to republish only after prefix finishes.
        public let suffix: Suffix

        /// Creates a publisher that emits all of one publisher's elements before those from another publisher.
        public init(prefix: Prefix, suffix: Suffix) {
            self.prefix = prefix
            self.suffix = suffix
        }

        /// Attaches the subscriber to the prefix, then (once it finishes) to the suffix.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = ConcatenateInner(downstream: subscriber, suffix: suffix)
            prefix.subscribe(ConcatenateSubscriber<ConcatenatePrefix, _, _>(inner: inner))
        }
    }
}

extension Publisher {
    /// Prefixes a publisher's output with the specified values.
    ///
    /// ```swift
    /// [3, 4].publisher.prepend(1, 2)   // 1, 2, 3, 4
    /// ```
    public func prepend(_ elements: Output...) -> Publishers.Concatenate<Publishers.Sequence<[Output], Failure>, Self> {
        prepend(elements)
    }

    /// Prefixes a publisher's output with the specified sequence.
    ///
    /// ```swift
    /// live.prepend(cached)
    /// ```
    public func prepend<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Publishers.Sequence<S, Failure>, Self>
    where Output == S.Element {
        Publishers.Concatenate(prefix: Publishers.Sequence(sequence: elements), suffix: self)
    }

    /// Prefixes the output of this publisher with the elements emitted by the given publisher.
    ///
    /// ```swift
    /// updates.prepend(snapshot)
    /// ```
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }

    /// Appends a publisher's output with the specified elements.
    ///
    /// ```swift
    /// [1, 2].publisher.append(3, 4)   // 1, 2, 3, 4
    /// ```
    public func append(_ elements: Output...) -> Publishers.Concatenate<Self, Publishers.Sequence<[Output], Failure>> {
        append(elements)
    }

    /// Appends a publisher's output with the specified sequence.
    ///
    /// ```swift
    /// page.append(footer)
    /// ```
    public func append<S: Sequence>(_ elements: S) -> Publishers.Concatenate<Self, Publishers.Sequence<S, Failure>>
    where Output == S.Element {
        Publishers.Concatenate(prefix: self, suffix: Publishers.Sequence(sequence: elements))
    }

    /// Appends the output of this publisher with the elements emitted by the given publisher.
    ///
    /// ```swift
    /// snapshot.append(updates)
    /// ```
    public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Concatenate(prefix: self, suffix: publisher)
    }
}
