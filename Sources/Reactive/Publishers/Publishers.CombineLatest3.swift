extension Publishers {
    /// A publisher that receives and combines the latest elements from 3 publishers.
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
    where A.Failure == B.Failure, A.Failure == C.Failure {
        /// A tuple of one element from each upstream publisher.
        public typealias Output = (A.Output, B.Output, C.Output)
        /// The kind of errors this publisher might publish.
        public typealias Failure = A.Failure

        /// Upstream publisher 1.
        public let a: A
        /// Upstream publisher 2.
        public let b: B
        /// Upstream publisher 3.
        public let c: C

        /// Creates the publisher from its upstream publishers.
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        /// Attaches the subscriber to a combining object over all upstream publishers.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = CombineInner(name: "CombineLatest", downstream: subscriber, count: 3, mode: .latest) {
                ($0[0] as! A.Output, $0[1] as! B.Output, $0[2] as! C.Output)
            }
            inner.start { inner in
                inner.attach(a, at: 0)
                inner.attach(b, at: 1)
                inner.attach(c, at: 2)
            }
        }
    }
}

extension Publisher {
    /// Subscribes to additional publishers and publishes a tuple upon receiving output from any of them (once each has emitted).
    ///
    /// ```swift
    /// a.combineLatest(b, c)
    /// ```
    public func combineLatest<P: Publisher, Q: Publisher>(_ p: P, _ q: Q) -> Publishers.CombineLatest3<Self, P, Q>
    where Failure == P.Failure, Failure == Q.Failure {
        Publishers.CombineLatest3(self, p, q)
    }

    /// The same, transforming each tuple with a closure.
    ///
    /// ```swift
    /// name.combineLatest(password) { !$0.isEmpty && $1.count >= 8 }
    /// ```
    public func combineLatest<P: Publisher, Q: Publisher, T>(
        _ p: P, _ q: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T> where Failure == P.Failure, Failure == Q.Failure {
        Publishers.CombineLatest3(self, p, q).map { transform($0.0, $0.1, $0.2) }
    }
}
