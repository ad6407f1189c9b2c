import Synchronization

extension Publishers {
    /// A strategy for filling a buffer.
    public enum PrefetchStrategy: Equatable, Hashable, Sendable {
        /// A strategy to fill the buffer at subscription time, and keep it full thereafter.
        case keepFull
        /// A strategy that avoids prefetching and instead performs requests on demand.
        case byRequest
    }

    /// A strategy that handles exhaustion of a buffer's capacity.
    public enum BufferingStrategy<Failure: Error> {
        /// When the buffer is full, discard the newly received element.
        case dropNewest
        /// When the buffer is full, discard the oldest element in the buffer.
        case dropOldest
        /// When the buffer is full, execute the closure to provide a custom error.
        case customError(() -> Failure)
    }

    /// A publisher that buffers elements from an upstream publisher.
    public struct Buffer<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum number of elements to store.
        public let size: Int
        /// The strategy for initially populating the buffer.
        public let prefetch: PrefetchStrategy
        /// The action to take when the buffer becomes full.
        public let whenFull: BufferingStrategy<Upstream.Failure>

        /// Creates a publisher that buffers elements received from an upstream publisher.
        public init(
            upstream: Upstream, size: Int, prefetch: PrefetchStrategy, whenFull: BufferingStrategy<Upstream.Failure>
        ) {
            precondition(size >= 0, "buffer size must not be negative")
            self.upstream = upstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        /// Attaches the subscriber through the buffering object.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.receive(
                subscriber: BufferInner(downstream: subscriber, size: size, prefetch: prefetch, whenFull: whenFull))
        }
    }
}

extension Publisher {
    /// Buffers elements received from an upstream publisher.
    ///
    /// ```swift
    /// readings.buffer(size: 100, prefetch: .byRequest, whenFull: .dropOldest)
    /// ```
    public func buffer(
        size: Int, prefetch: Publishers.PrefetchStrategy, whenFull: Publishers.BufferingStrategy<Failure>
    ) -> Publishers.Buffer<Self> {
        Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
    }
}

/// Holds up to `size` elements the downstream has not asked for yet. The upstream is asked for `size` at once
/// and then for one more per element delivered (`keepFull`), or for everything (`byRequest`). As Combine's:
/// a failure (the upstream's, or the custom error of a full buffer, after which the upstream is cancelled and
/// no element is taken) goes out at once when the downstream has no demand (the held elements are dropped)
/// and after the held elements the demand takes otherwise, even from inside a delivery (the elements already
/// taken for it still follow); a finish goes out once the held elements are delivered and the downstream has
/// demand, and elements that come after it are still taken. A `keepFull` buffer still asks its upstream to
/// refill after its custom error. An element sent into the buffer from its `customError` closure traps (on
/// Combine it deadlocks: the closure runs under the buffer's lock).
private final class BufferInner<Element, UpstreamFailure: Error, Downstream: Subscriber>:
    Relay<Element, UpstreamFailure, Downstream>, @unchecked Sendable
where Downstream.Input == Element, Downstream.Failure == UpstreamFailure {
    private let size: Int
    private let prefetch: Publishers.PrefetchStrategy
    private let whenFull: Publishers.BufferingStrategy<UpstreamFailure>
    private let state = Mutex(BufferState<Element, UpstreamFailure>())

    init(
        downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
        whenFull: Publishers.BufferingStrategy<UpstreamFailure>
    ) {
        self.size = size
        self.prefetch = prefetch
        self.whenFull = whenFull
        super.init(downstream: downstream, name: "Buffer")
    }

    /// Combine's children: the held elements, the upstream's state, the downstream's demand and the completion
    /// waiting to go out.
    override var customMirror: Mirror {
        let (values, demand, terminal) = state.withLock { ($0.values, $0.demand, $0.terminal) }
        let children: [Mirror.Child] = [
            ("values", values), ("state", upstreamSubscription as Any), ("downstreamDemand", demand),
            ("terminal", terminal as Any),
        ]
        return Mirror(self, children: children)
    }

    override var requestsFirst: Bool { true }

    override func didSubscribe(_ subscription: any Subscription) {
        let first: Subscribers.Demand = prefetch == .keepFull ? .max(size) : .unlimited
        if first > 0 { subscription.request(first) }
    }

    override func receive(_ input: Element) -> Subscribers.Demand {
        guard isLive else { return .none }
        let overflowed = state.withLock { state -> Bool? in
            guard !state.done, !state.failed else { return nil }
            if state.values.count >= size {
                switch whenFull {
                case .dropNewest:
                    return false
                case .dropOldest:
                    if !state.values.isEmpty { state.values.removeFirst() }
                case .customError:
                    precondition(
                        !state.makingError,
                        "an element sent into buffer(size:prefetch:whenFull:) from its customError closure")
                    state.makingError = true
                    return true
                }
            }
            if size > 0 { state.values.append(input) }
            return false
        }
        guard let overflowed else { return .none }
        guard overflowed, case .customError(let makeError) = whenFull else { return drain() }
        // NB: the user's closure runs outside the lock; an element it sends in traps above, as Combine deadlocks.
        let error = makeError()
        state.withLock { state in
            state.makingError = false
            if !state.done { state.terminal = .failure(error) }
        }
        // NB: as Combine's, the subscription is cancelled but kept: a later request still asks it to refill.
        upstreamSubscription?.cancel()
        return .none
    }

    override func receive(completion: Subscribers.Completion<UpstreamFailure>) {
        state.withLock { state in
            if !state.done, state.terminal == nil { state.terminal = completion }
        }
        _ = drain()
    }

    override func request(_ demand: Subscribers.Demand) {
        // NB: Combine's buffer takes a request of zero without trapping (it adds nothing).
        guard demand > 0 else { return }
        let nested = state.withLock { state -> Bool in
            state.demand += demand
            return state.delivering > 0
        }
        guard !nested else { return }
        let more = drain()
        if more > 0 { super.request(more) }
    }

    override func cancel() {
        state.withLock { state in
            state.done = true
            state.values = []
        }
        super.cancel()
    }

    /// Delivers held elements while the downstream has demand (one deliverer at a time) and the completion
    /// when it is due; returns how much more to ask the upstream for (`keepFull`: one per element delivered).
    private func drain() -> Subscribers.Demand {
        var replenish = Subscribers.Demand.none
        while true {
            let step = state.withLock { $0.nextStep() }
            switch step {
            case .idle:
                return replenish
            case .complete(let completion):
                downstream.receive(completion: completion)
                return replenish
            case .values(let values):
                var more = Subscribers.Demand.none
                for value in values { more += downstream.receive(value) }
                if prefetch == .keepFull { replenish += values.count }
                state.withLock { state in
                    state.demand += more
                    state.delivering -= 1
                }
            }
        }
    }
}

private enum BufferStep<Element, Failure: Error> {
    case idle
    case values([Element])
    case complete(Subscribers.Completion<Failure>)
}

// NB: @unchecked Sendable: it only lives inside its operator's Mutex.
private struct BufferState<Element, Failure: Error>: @unchecked Sendable {
    var values: [Element] = []
    var demand = Subscribers.Demand.none
    var terminal: Subscribers.Completion<Failure>?
    /// Deliveries under way on this buffer (one, or more when a delivery leads the upstream to send again).
    var delivering = 0
    /// The `customError` closure is running.
    var makingError = false
    var done = false

    /// A failure is waiting: no element is taken any more.
    var failed: Bool {
        if case .failure = terminal { true } else { false }
    }

    /// What the deliverer does next: takes as many elements as there is demand for, the completion, or nothing.
    /// A failure without demand goes out at once, even from inside a delivery (the elements taken for that
    /// delivery still follow it, as Combine's); elements are taken by one delivery at a time.
    mutating func nextStep() -> BufferStep<Element, Failure> {
        guard !done else { return .idle }
        if demand == .none {
            guard let terminal, case .failure = terminal else { return .idle }
            done = true
            values = []
            return .complete(terminal)
        }
        guard delivering == 0 else { return .idle }
        if values.isEmpty {
            guard let terminal else { return .idle }
            done = true
            return .complete(terminal)
        }
        let taken = demand.max.map { Array(values.prefix($0)) } ?? values
        values.removeFirst(taken.count)
        demand -= taken.count
        delivering += 1
        return .values(taken)
    }
}
