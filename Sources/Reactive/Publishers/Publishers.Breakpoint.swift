import ReactivePlatform

extension Publishers {
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
            upstream.subscribe(BreakpointInner(downstream: subscriber, breakpoint: self))
        }
    }
}

extension Publisher {
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

/// The subscriber of `breakpoint` ("Breakpoint"): it checks each event and passes it on as it comes, keeping no
/// state, as Combine's does (so the downstream gets the upstream's own subscription, and an event after the
/// completion is still checked and passed on).
private struct BreakpointInner<Upstream: Publisher, Downstream: Subscriber>: Subscriber, CombineDescribed
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    let downstream: Downstream
    let breakpoint: Publishers.Breakpoint<Upstream>
    let combineIdentifier = CombineIdentifier()
    var combineName: String { "Breakpoint" }

    func receive(subscription: any Subscription) {
        if breakpoint.receiveSubscription?(subscription) == true { raiseDebuggerTrap() }
        downstream.receive(subscription: subscription)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        if breakpoint.receiveOutput?(input) == true { raiseDebuggerTrap() }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        if breakpoint.receiveCompletion?(completion) == true { raiseDebuggerTrap() }
        downstream.receive(completion: completion)
    }
}
