extension Publishers {
    /// A publisher that raises a fatal error upon receiving any failure, and otherwise republishes everything.
    public struct AssertNoFailure<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// A failure traps, so this publisher never fails.
        public typealias Failure = Never

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The string used at the beginning of the fatal error message.
        public let prefix: String
        /// The file name used in the error message.
        public let file: StaticString
        /// The line number used in the error message.
        public let line: UInt

        /// Creates the publisher.
        public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
            self.upstream = upstream
            self.prefix = prefix
            self.file = file
            self.line = line
        }

        /// Attaches the subscriber through an inner subscriber that passes every event on as it comes (the
        /// upstream's subscription too) and stops the process on a failure.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            upstream.subscribe(AssertNoFailureInner(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Raises a fatal error when the upstream fails, and otherwise republishes everything.
    ///
    /// ```swift
    /// Just(1).setFailureType(to: MyError.self).assertNoFailure("never fails")
    /// ```
    public func assertNoFailure(_ prefix: String = "", file: StaticString = #file, line: UInt = #line)
        -> Publishers.AssertNoFailure<Self>
    {
        Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
    }
}

/// The subscriber of `assertNoFailure`, stateless as Combine's, and described as Combine's: "AssertNoFailure",
/// with the file, line and prefix in its mirror.
private struct AssertNoFailureInner<Upstream: Publisher, Downstream: Subscriber>: Subscriber, CombineDescribed
where Downstream.Input == Upstream.Output, Downstream.Failure == Never {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    let downstream: Downstream
    let publisher: Publishers.AssertNoFailure<Upstream>
    let combineIdentifier = CombineIdentifier()
    var combineName: String { "AssertNoFailure" }
    var customMirror: Mirror {
        let children: [Mirror.Child] = [
            ("file", publisher.file), ("line", publisher.line), ("prefix", publisher.prefix),
        ]
        return Mirror(self, children: children)
    }

    func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }
    func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            let prefix = publisher.prefix
            fatalError("\(prefix.isEmpty ? "" : prefix + ": ")\(error)", file: publisher.file, line: publisher.line)
        }
    }
}
