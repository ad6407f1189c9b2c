extension Publishers {
    /// A publisher created by applying the zip function to 2 upstream publishers.
    public struct Zip<A: Publisher, B: Publisher>: Publisher
    where A.Failure == B.Failure {
        /// A tuple of one element from each upstream publisher.
        public typealias Output = (A.Output, B.Output)
        /// The kind of errors this publisher might publish.
        public typealias Failure = A.Failure

        /// Upstream publisher 1.
        public let a: A
        /// Upstream publisher 2.
        public let b: B

        /// Creates the publisher from its upstream publishers.
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        /// Attaches the subscriber to a combining object over all upstream publishers.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = CombineInner(name: "Zip", downstream: subscriber, count: 2, mode: .zip) {
                ($0[0] as! A.Output, $0[1] as! B.Output)
            }
            inner.start { inner in
                inner.attach(a, at: 0)
                inner.attach(b, at: 1)
            }
        }
    }
}

extension Publisher {
    /// Combines elements from additional publishers and delivers groups of elements as tuples.
    ///
    /// ```swift
    /// [1, 2].publisher.zip(["a", "b"].publisher)   // (1, "a"), (2, "b")
    /// ```
    public func zip<P: Publisher>(_ p: P) -> Publishers.Zip<Self, P>
    where Failure == P.Failure {
        Publishers.Zip(self, p)
    }

    /// The same, transforming each tuple with a closure.
    ///
    /// ```swift
    /// ids.zip(names) { "\($0): \($1)" }
    /// ```
    public func zip<P: Publisher, T>(
        _ p: P, _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.Zip<Self, P>, T> where Failure == P.Failure {
        Publishers.Zip(self, p).map { transform($0.0, $0.1) }
    }
}
