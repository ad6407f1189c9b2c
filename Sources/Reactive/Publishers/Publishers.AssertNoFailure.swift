internal import ReactivePlatform

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

    /// A publisher that raises a debugger signal (SIGTRAP) when a closure says so, and otherwise republishes
    /// everything.
    public struct Breakpoint<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// Whether to stop on the subscription.
        public let receiveSubscription: ((any Subscription) -> Bool)?
        /// Whether to stop on an element.
        public let receiveOutput: ((Upstream.Output) -> Bool)?
        /// Whether to stop on the completion.
        public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

        /// Creates the publisher.
        public init(
            upstream: Upstream, receiveSubscription: ((any Subscription) -> Bool)? = nil,
            receiveOutput: ((Upstream.Output) -> Bool)? = nil,
            receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)? = nil
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
        }

        /// Attaches the subscriber; each closure that returns true raises SIGTRAP first.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let (onSubscription, onOutput, onCompletion) = (receiveSubscription, receiveOutput, receiveCompletion)
            upstream.handleEvents(
                receiveSubscription: { if onSubscription?($0) == true { raiseDebuggerTrap() } },
                receiveOutput: { if onOutput?($0) == true { raiseDebuggerTrap() } },
                receiveCompletion: { if onCompletion?($0) == true { raiseDebuggerTrap() } }
            ).subscribe(subscriber, name: "Breakpoint")
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

    /// Raises a debugger signal when a provided closure needs to stop the process in the debugger.
    ///
    /// ```swift
    /// publisher.breakpoint(receiveOutput: { $0 > 10 })
    /// ```
    public func breakpoint(
        receiveSubscription: ((any Subscription) -> Bool)? = nil, receiveOutput: ((Output) -> Bool)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
    ) -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(
            upstream: self, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion)
    }

    /// Raises a debugger signal upon receiving a failure.
    ///
    /// ```swift
    /// publisher.breakpointOnError()
    /// ```
    public func breakpointOnError() -> Publishers.Breakpoint<Self> {
        breakpoint(receiveCompletion: { if case .failure = $0 { true } else { false } })
    }
}
