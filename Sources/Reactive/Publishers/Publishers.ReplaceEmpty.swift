import Synchronization

extension Publishers {
    /// A publisher that replaces an empty stream with a provided element.
    public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The element to deliver when the upstream publisher finishes without delivering any elements.
        public let output: Upstream.Output
        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that replaces an empty stream with a provided element.
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches the subscriber through an inner object that notices an empty stream.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(ReplaceEmptyInner(downstream: subscriber, output: output))
        }
    }
}

extension Publisher {
    /// Replaces an empty stream with the provided element.
    ///
    /// ```swift
    /// Empty<Int, Never>().replaceEmpty(with: 0)   // 0
    /// ```
    public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
        Publishers.ReplaceEmpty(upstream: self, output: output)
    }

    /// Replaces nil elements in the stream with the provided element.
    ///
    /// ```swift
    /// [1, nil, 3].publisher.replaceNil(with: 0)   // 1, 0, 3
    /// ```
    public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
        map { $0 ?? output }
    }
}

/// Passes elements through; if the upstream finishes having sent none, sends the replacement once demanded.
private final class ReplaceEmptyInner<Downstream: Subscriber>:
    Relay<Downstream.Input, Downstream.Failure, Downstream>, @unchecked Sendable
{
    private let output: Downstream.Input
    private let state = Mutex(ReplaceEmptyState())

    init(downstream: Downstream, output: Downstream.Input) {
        self.output = output
        super.init(downstream: downstream)
    }

    // NB: as Combine's, the upstream is asked for everything once the downstream has its subscription (on top
    // of what the downstream asks for, which is passed on too).
    override func didSubscribe(_ subscription: any Subscription) {
        subscription.request(.unlimited)
    }

    override func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        guard isLive else { return .none }
        state.withLock { $0.sawValue = true }
        return downstream.receive(input)
    }

    override func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        guard markCompleted() else { return }
        guard case .finished = completion else { return downstream.receive(completion: completion) }
        let now = state.withLock { state -> Bool? in
            if state.sawValue { return nil }
            if state.demand > 0 { return true }
            state.pending = true
            return false
        }
        switch now {
        case nil: downstream.receive(completion: .finished)
        case true?: sendReplacement()
        case false?: break
        }
    }

    private func sendReplacement() {
        _ = downstream.receive(output)
        downstream.receive(completion: .finished)
    }

    override func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let send = state.withLock { state -> Bool in
            state.demand += demand
            defer { state.pending = false }
            return state.pending
        }
        if send { sendReplacement() } else { super.request(demand) }
    }
}

private struct ReplaceEmptyState {
    var sawValue = false
    var demand = Subscribers.Demand.none
    var pending = false
}
