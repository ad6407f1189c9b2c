extension Publishers {
    /// A publisher that receives and combines the latest elements from 4 publishers.
    public struct CombineLatest4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
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
            let inner = CombineInner(name: "CombineLatest", downstream: subscriber, count: 4, mode: .latest) {
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
    /// Subscribes to additional publishers and publishes a tuple upon receiving output from any of them (once each has emitted).
    ///
    /// ```swift
    /// a.combineLatest(b, c, d)
    /// ```
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher>(_ p: P, _ q: Q, _ r: R)
        -> Publishers.CombineLatest4<Self, P, Q, R>
    where Failure == P.Failure, Failure == Q.Failure, Failure == R.Failure {
        Publishers.CombineLatest4(self, p, q, r)
    }

    /// The same, transforming each tuple with a closure.
    ///
    /// ```swift
    /// name.combineLatest(password) { !$0.isEmpty && $1.count >= 8 }
    /// ```
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher, T>(
        _ p: P, _ q: Q, _ r: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
    where Failure == P.Failure, Failure == Q.Failure, Failure == R.Failure {
        Publishers.CombineLatest4(self, p, q, r).map { transform($0.0, $0.1, $0.2, $0.3) }
    }
}
