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

        /// Attaches the subscriber; a failure from upstream stops the process.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            let (prefix, file, line) = (prefix, file, line)
            upstream.mapError { error -> Never in
                fatalError("\(prefix.isEmpty ? "" : prefix + ": ")\(error)", file: file, line: line)
            }.subscribe(subscriber)
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
