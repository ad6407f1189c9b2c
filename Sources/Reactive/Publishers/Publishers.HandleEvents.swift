import Synchronization

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

/// The subscriber of `handleEvents`: it passes every event on as it comes, keeping no state
/// beyond what Combine's keeps. The closures are called until the first completion or a cancel after the
/// subscription; events that come later still reach the downstream (and its demand the upstream), unseen.
/// Only the first subscription is kept and handed on; a later one is cancelled (its closure is still called).
// NB: @unchecked Sendable: the status and the closures' switch are Mutex-guarded; closures and downstream are
// called outside the lock.
private final class HandleEventsInner<Upstream: Publisher, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    private let downstream: Downstream
    private let handlers: Publishers.HandleEvents<Upstream>
    private let state = Mutex(HandleEventsState())
    var combineName: String { "HandleEvents" }

    init(downstream: Downstream, handlers: Publishers.HandleEvents<Upstream>) {
        self.downstream = downstream
        self.handlers = handlers
    }

    /// The closures, while they are still to be called.
    private var live: Publishers.HandleEvents<Upstream>? { state.withLock { $0.handlersLive } ? handlers : nil }

    func receive(subscription: any Subscription) {
        live?.receiveSubscription?(subscription)
        guard state.withLock({ $0.status.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        live?.receiveOutput?(input)
        let demand = downstream.receive(input)
        if demand > 0 { live?.receiveRequest?(demand) }
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let wasLive = state.withLock { state in
            defer { state.handlersLive = false }
            return state.handlersLive
        }
        if wasLive { handlers.receiveCompletion?(completion) }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let (wasLive, upstream) = state.withLock { state -> (Bool, (any Subscription)?) in
            if case .terminal = state.status { return (false, nil) }
            return (state.handlersLive, state.status.subscription)
        }
        if wasLive { handlers.receiveRequest?(demand) }
        upstream?.request(demand)
    }

    /// A cancel before the subscription only calls the closure: the subscription, when it comes, is still
    /// taken and handed on (as Combine's).
    func cancel() {
        let (wasLive, upstream) = state.withLock { state -> (Bool, (any Subscription)?) in
            let wasLive = state.handlersLive
            guard let upstream = state.status.subscription else {
                if case .terminal = state.status { return (false, nil) }
                return (wasLive, nil)
            }
            state.status = .terminal
            state.handlersLive = false
            return (wasLive, upstream)
        }
        if wasLive { handlers.receiveCancel?() }
        upstream?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct HandleEventsState: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    var handlersLive = true
}
