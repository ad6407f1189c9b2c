extension Publishers {
    /// A publisher created by applying the zip function to 4 upstream publishers.
    public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
    where A.Failure == B.Failure, A.Failure == C.Failure, A.Failure == D.Failure {
        /// A tuple of one element from each upstream publisher.
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        /// The kind of errors this publisher might publish.
        public typealias Failure = A.Failure

        /// Upstream publisher 1.
        public let a: A
        /// Upstream publisher 2.
        public let b: B
        /// Upstream publisher 3.
        public let c: C
        /// Upstream publisher 4.
        public let d: D

        /// Creates the publisher from its upstream publishers.
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        /// Attaches the subscriber to a combining object over all upstream publishers.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = CombineInner(name: "Zip", downstream: subscriber, count: 4, mode: .zip) {
                ($0[0] as! A.Output, $0[1] as! B.Output, $0[2] as! C.Output, $0[3] as! D.Output)
            }
            inner.start { inner in
                inner.attach(a, at: 0)
                inner.attach(b, at: 1)
                inner.attach(c, at: 2)
                inner.attach(d, at: 3)
            }
        }
    }
}

extension Publisher {
    /// Combines elements from additional publishers and delivers groups of elements as tuples.
    ///
    /// ```swift
    /// a.zip(b, c, d)
    /// ```
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(_ p: P, _ q: Q, _ r: R) -> Publishers.Zip4<Self, P, Q, R>
    where Failure == P.Failure, Failure == Q.Failure, Failure == R.Failure {
        Publishers.Zip4(self, p, q, r)
    }

    /// The same, transforming each tuple with a closure.
    ///
    /// ```swift
    /// ids.zip(names) { "\($0): \($1)" }
    /// ```
    public func zip<P: Publisher, Q: Publisher, R: Publisher, T>(
        _ p: P, _ q: Q, _ r: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
    ) -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T>
    where Failure == P.Failure, Failure == Q.Failure, Failure == R.Failure {
        Publishers.Zip4(self, p, q, r).map { transform($0.0, $0.1, $0.2, $0.3) }
    }
}
