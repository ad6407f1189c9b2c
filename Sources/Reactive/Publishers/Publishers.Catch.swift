import Synchronization

extension Publishers {
    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher with
    /// another publisher.
    public struct Catch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = NewPublisher.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// A closure that accepts the upstream failure as input and returns a publisher to replace the upstream.
        public let handler: (Upstream.Failure) -> NewPublisher

        /// Creates a publisher that handles errors from an upstream publisher by replacing it.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber; on failure it is moved over to the handler's publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let handler = handler
            upstream.subscribe(
                CatchInner<Upstream, NewPublisher, S>(
                    name: "Catch", downstream: subscriber, handler: { handler($0) },
                    recoveryFailure: { $0 }, handlerFailure: { _ in fatalError("a catch handler cannot throw") }))
        }
    }

    /// A publisher that handles errors from an upstream publisher by replacing the failed publisher with
    /// another publisher or producing a new error.
    public struct TryCatch<Upstream: Publisher, NewPublisher: Publisher>: Publisher
    where Upstream.Output == NewPublisher.Output {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// Any error: the handler may throw.
        public typealias Failure = any Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// An error-throwing closure that returns a publisher to replace the upstream.
        public let handler: (Upstream.Failure) throws -> NewPublisher

        /// Creates a publisher that handles errors by replacing the upstream or throwing a new error.
        public init(upstream: Upstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher) {
            self.upstream = upstream
            self.handler = handler
        }

        /// Attaches the subscriber; on failure it is moved over to the handler's publisher.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                CatchInner<Upstream, NewPublisher, S>(
                    name: "TryCatch", downstream: subscriber, handler: handler, recoveryFailure: { $0 },
                    handlerFailure: { $0 }))
        }
    }
}

extension Publisher {
    /// Handles errors from an upstream publisher by replacing it with another publisher.
    ///
    /// ```swift
    /// fetch.catch { _ in Just([]) }
    /// ```
    public func `catch`<P: Publisher>(_ handler: @escaping (Failure) -> P) -> Publishers.Catch<Self, P>
    where Output == P.Output {
        Publishers.Catch(upstream: self, handler: handler)
    }

    /// Handles errors from an upstream publisher by either replacing it with another publisher or throwing a
    /// new error.
    ///
    /// ```swift
    /// fetch.tryCatch { error in guard retryable(error) else { throw error }; return fetch }
    /// ```
    public func tryCatch<P: Publisher>(_ handler: @escaping (Failure) throws -> P) -> Publishers.TryCatch<Self, P>
    where Output == P.Output {
        Publishers.TryCatch(upstream: self, handler: handler)
    }
}

/// The subscriber of `catch` and `tryCatch` ("Catch", "TryCatch"), as Combine's: it counts the downstream's
/// demand (a value beyond it traps), and on the upstream's failure subscribes to the handler's publisher and
/// asks it for the demand still outstanding. A second failure of the upstream once recovering is a programming
/// error and traps. A cancel while the recovery publisher is being subscribed to is ignored; after a cancel (or
/// once a thrown handler has failed the downstream) values that still come are passed on, completions are not.
// NB: @unchecked Sendable: all state is Mutex-guarded; the handler, the downstream and the subscriptions are
// called outside the lock.
final class CatchInner<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Upstream.Output == NewPublisher.Output, Downstream.Input == Upstream.Output {
    typealias Input = Upstream.Output
    typealias Failure = Upstream.Failure

    let description: String
    private let downstream: Downstream
    private let handler: (Upstream.Failure) throws -> NewPublisher
    private let recoveryFailure: (NewPublisher.Failure) -> Downstream.Failure
    private let handlerFailure: (any Error) -> Downstream.Failure
    private let state = Mutex(CatchState())

    init(
        name: String, downstream: Downstream, handler: @escaping (Upstream.Failure) throws -> NewPublisher,
        recoveryFailure: @escaping (NewPublisher.Failure) -> Downstream.Failure,
        handlerFailure: @escaping (any Error) -> Downstream.Failure
    ) {
        description = name
        self.downstream = downstream
        self.handler = handler
        self.recoveryFailure = recoveryFailure
        self.handlerFailure = handlerFailure
    }

    var playgroundDescription: Any { description }
    var customMirror: Mirror {
        Mirror(self, children: ["downstream": downstream, "demand": state.withLock { $0.demand }])
    }

    func receive(subscription: any Subscription) {
        let accepted = state.withLock { $0.cancelled ? false : $0.upstream.accept(subscription) }
        guard accepted else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let passes = state.withLock { state -> Bool in
            guard case .none = state.recovery else { return false }
            if !state.cancelled, !state.completed {
                precondition(state.demand > 0, "a value beyond the demand")
                state.demand -= 1
            }
            return true
        }
        return passes ? deliver(input) : .none
    }

    func receive(completion: Subscribers.Completion<Upstream.Failure>) {
        let next = state.withLock { state -> CatchStep<Upstream.Failure> in
            guard state.upstream.subscription != nil, !state.cancelled, !state.completed else { return .ignore }
            guard case .none = state.recovery else {
                if case .failure = completion { preconditionFailure("the upstream failed twice") }
                return .ignore
            }
            switch completion {
            case .finished:
                state.completed = true
                return .finish
            case .failure(let error):
                state.recovery = .pending
                return .recover(error)
            }
        }
        switch next {
        case .ignore: return
        case .finish: downstream.receive(completion: .finished)
        case .recover(let error):
            do {
                try handler(error).subscribe(CatchRecoverySubscriber(inner: self))
            } catch {
                state.withLock { state in
                    state.completed = true
                    state.recovery = .none
                }
                downstream.receive(completion: .failure(handlerFailure(error)))
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        let target = state.withLock { state -> (any Subscription)? in
            guard !state.cancelled else { return nil }
            state.demand += demand
            switch state.recovery {
            case .none: return state.upstream.subscription
            case .pending: return nil
            case .subscribed(let recovery): return recovery
            }
        }
        target?.request(demand)
    }

    func cancel() {
        let target = state.withLock { state -> (any Subscription)? in
            guard !state.cancelled else { return nil }
            switch state.recovery {
            case .pending: return nil
            case .none:
                state.cancelled = true
                return state.upstream.subscription
            case .subscribed(let recovery):
                state.cancelled = true
                return recovery
            }
        }
        target?.cancel()
    }

    /// Passes a value on and adds the demand the downstream returns.
    private func deliver(_ input: Input) -> Subscribers.Demand {
        let more = downstream.receive(input)
        if more > 0 { state.withLock { $0.demand += more } }
        return more
    }

    fileprivate func recoverySubscribed(_ subscription: any Subscription) {
        let demand = state.withLock { state -> Subscribers.Demand? in
            guard case .pending = state.recovery else { return nil }
            state.recovery = .subscribed(subscription)
            return state.demand
        }
        guard let demand else { return subscription.cancel() }
        if demand > 0 { subscription.request(demand) }
    }

    fileprivate func recoveryValue(_ input: Input) -> Subscribers.Demand {
        state.withLock { state in
            guard !state.cancelled, !state.completed else { return }
            precondition(state.demand > 0, "a value beyond the demand")
            state.demand -= 1
        }
        return deliver(input)
    }

    fileprivate func recoveryCompleted(_ completion: Subscribers.Completion<NewPublisher.Failure>) {
        let live = state.withLock { state -> Bool in
            guard !state.cancelled, !state.completed else { return false }
            state.completed = true
            return true
        }
        guard live else { return }
        switch completion {
        case .finished: downstream.receive(completion: .finished)
        case .failure(let error): downstream.receive(completion: .failure(recoveryFailure(error)))
        }
    }
}

/// What a catch does with a completion of its upstream.
private enum CatchStep<Failure: Error> {
    case ignore
    case finish
    case recover(Failure)
}

/// Where a catch stands.
// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct CatchState: @unchecked Sendable {
    enum Recovery {
        case none
        /// The handler's publisher is being subscribed to.
        case pending
        case subscribed(any Subscription)
    }

    var upstream = SubscriptionStatus.awaiting
    var recovery = Recovery.none
    var demand = Subscribers.Demand.none
    var cancelled = false
    /// A completion has gone downstream (or the handler threw): no other will.
    var completed = false
}

/// The subscriber a catch gives the handler's publisher; it describes itself as the catch does.
private struct CatchRecoverySubscriber<Upstream: Publisher, NewPublisher: Publisher, Downstream: Subscriber>:
    Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Upstream.Output == NewPublisher.Output, Downstream.Input == Upstream.Output {
    typealias Input = NewPublisher.Output
    typealias Failure = NewPublisher.Failure

    let inner: CatchInner<Upstream, NewPublisher, Downstream>
    let combineIdentifier = CombineIdentifier()
    var description: String { inner.description }
    var customMirror: Mirror { inner.customMirror }
    var playgroundDescription: Any { inner.playgroundDescription }

    func receive(subscription: any Subscription) { inner.recoverySubscribed(subscription) }
    func receive(_ input: Input) -> Subscribers.Demand { inner.recoveryValue(input) }
    func receive(completion: Subscribers.Completion<Failure>) { inner.recoveryCompleted(completion) }
}
