extension Publishers {
    /// A publisher that receives and combines the latest elements from 2 publishers.
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher
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
            let inner = CombineInner(name: "CombineLatest", downstream: subscriber, count: 2, mode: .latest) {
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
    /// Subscribes to additional publishers and publishes a tuple upon receiving output from any of them (once each has emitted).
    ///
    /// ```swift
    /// name.combineLatest(password)   // (latest name, latest password)
    /// ```
    public func combineLatest<P: Publisher>(_ p: P) -> Publishers.CombineLatest<Self, P>
    where Failure == P.Failure {
        Publishers.CombineLatest(self, p)
    }

    /// The same, transforming each tuple with a closure.
    ///
    /// ```swift
    /// name.combineLatest(password) { !$0.isEmpty && $1.count >= 8 }
    /// ```
    public func combineLatest<P: Publisher, T>(
        _ p: P, _ transform: @escaping (Output, P.Output) -> T
    ) -> Publishers.Map<Publishers.CombineLatest<Self, P>, T> where Failure == P.Failure {
        Publishers.CombineLatest(self, p).map { transform($0.0, $0.1) }
    }
}
