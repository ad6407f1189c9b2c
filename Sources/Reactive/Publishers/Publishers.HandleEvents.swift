extension Publishers {
    /// A publisher that performs the specified closures when publisher events occur.
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// A closure that executes when the publisher receives the subscription from the upstream publisher.
        public var receiveSubscription: ((any Subscription) -> Void)?
        /// A closure that executes when the publisher receives a value from the upstream publisher.
        public var receiveOutput: ((Upstream.Output) -> Void)?
        /// A closure that executes when the upstream publisher finishes normally or terminates with an error.
        public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?
        /// A closure that executes when the downstream receiver cancels publishing.
        public var receiveCancel: (() -> Void)?
        /// A closure that executes when the downstream receiver requests more elements.
        public var receiveRequest: ((Subscribers.Demand) -> Void)?

        /// Creates a publisher that performs the specified closures when publisher events occur.
        public init(
            upstream: Upstream,
            receiveSubscription: ((any Subscription) -> Void)? = nil,
            receiveOutput: ((Upstream.Output) -> Void)? = nil,
            receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)? = nil,
            receiveCancel: (() -> Void)? = nil,
            receiveRequest: ((Subscribers.Demand) -> Void)?
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.receiveCancel = receiveCancel
            self.receiveRequest = receiveRequest
        }

        /// Attaches the subscriber through an inner object that calls the closures.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: HandleEventsInner(downstream: subscriber, handlers: self))
        }

        /// Attaches the subscriber under another of Combine's names (`print` is "Print", `breakpoint` is
        /// "Breakpoint").
        func subscribe<S: Subscriber>(_ subscriber: S, name: String) where S.Input == Output, S.Failure == Failure {
            upstream.receive(subscriber: HandleEventsInner(downstream: subscriber, handlers: self, name: name))
        }
    }
}

extension Publisher {
    /// Performs the specified closures when publisher events occur.
    ///
    /// ```swift
    /// fetch.handleEvents(receiveSubscription: { _ in spinner.start() }, receiveCompletion: { _ in spinner.stop() })
    /// ```
    public func handleEvents(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(
            upstream: self, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion, receiveCancel: receiveCancel, receiveRequest: receiveRequest
        )
    }
}

private final class HandleEventsInner<Upstream: Publisher, Downstream: Subscriber>:
    Relay<Upstream.Output, Upstream.Failure, Downstream>, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    private let handlers: Publishers.HandleEvents<Upstream>

    init(downstream: Downstream, handlers: Publishers.HandleEvents<Upstream>, name: String = "HandleEvents") {
        self.handlers = handlers
        super.init(downstream: downstream, name: name)
    }

    override func receive(subscription: any Subscription) {
        handlers.receiveSubscription?(subscription)
        super.receive(subscription: subscription)
    }

    override func receive(_ input: Upstream.Output) -> Subscribers.Demand {
        handlers.receiveOutput?(input)
        let demand = downstream.receive(input)
        if demand > 0 { handlers.receiveRequest?(demand) }
        return demand
    }

    override func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        guard markCompleted(beforeSubscription: true) else { return }
        handlers.receiveCompletion?(completion)
        downstream.receive(completion: completion)
    }

    override func request(_ demand: Subscribers.Demand) {
        handlers.receiveRequest?(demand)
        super.request(demand)
    }

    override func cancel() {
        handlers.receiveCancel?()
        super.cancel()
    }
}
