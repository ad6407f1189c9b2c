import Synchronization

extension Publishers {
    /// A publisher that publishes elements specified by a range in the sequence of published elements.
    public struct Output<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher.
        public typealias Output = Upstream.Output
        /// The kind of errors this publisher might publish.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The range of elements to publish.
        public let range: CountableRange<Int>

        /// Creates the publisher.
        public init(upstream: Upstream, range: CountableRange<Int>) {
            precondition(range.lowerBound >= 0, "lowerBound must not be negative")
            self.upstream = upstream
            self.range = range
        }

        /// Attaches the subscriber through a stepping inner subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(OutputInner<Upstream.Output, Failure, S>(downstream: subscriber, range: range))
        }
    }
}

extension Publisher {
    /// Publishes a specific element, indicated by its index in the sequence of published elements.
    ///
    /// ```swift
    /// ["a", "b", "c"].publisher.output(at: 1)   // "b"
    /// ```
    public func output(at index: Int) -> Publishers.Output<Self> {
        Publishers.Output(upstream: self, range: index..<(index + 1))
    }

    /// Publishes elements specified by their range in the sequence of published elements.
    ///
    /// ```swift
    /// (0..<10).publisher.output(in: 2...4)   // 2, 3, 4
    /// ```
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        Publishers.Output(upstream: self, range: range.relative(to: 0..<Int.max))
    }

    /// Republishes elements up to the specified maximum count, then finishes.
    ///
    /// ```swift
    /// [1, 2, 3].publisher.prefix(2)   // 1, 2
    /// ```
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        precondition(maxLength >= 0, "maxLength must not be negative")
        return Publishers.Output(upstream: self, range: 0..<maxLength)
    }
}

/// The subscriber of `output(in:)` and `prefix(_:)` ("Output"), as Combine's: every value that comes is
/// counted, even before the subscription or after the end. One before the range asks for one more in its
/// place; one in the range goes downstream; the range's last one, while subscribed and not yet completed, also
/// cancels the upstream and finishes the downstream. A completion goes downstream once, and only while
/// subscribed; a cancel before the subscription does nothing.
// NB: @unchecked Sendable: all state is Mutex-guarded; the downstream and the upstream are called outside.
private final class OutputInner<Input, Failure: Error, Downstream: Subscriber>: Subscriber, Subscription,
    CombineDescribed, @unchecked Sendable
where Downstream.Input == Input, Downstream.Failure == Failure {
    private let downstream: Downstream
    private let range: CountableRange<Int>
    private let state = Mutex(OutputState())
    var combineName: String { "Output" }

    init(downstream: Downstream, range: CountableRange<Int>) {
        self.downstream = downstream
        self.range = range
    }

    func receive(subscription: any Subscription) {
        guard state.withLock({ $0.status.accept(subscription) }) else { return subscription.cancel() }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let (index, upstream) = state.withLock { state -> (Int, (any Subscription)?) in
            let index = state.index
            state.index += 1
            // NB: an empty range (`prefix(0)`) ends at the first value, which it does not pass on.
            let ends = range.isEmpty || index == range.upperBound - 1
            guard ends, !state.completed, state.status.subscription != nil else {
                return (index, nil)
            }
            state.completed = true
            return (index, state.status.terminate())
        }
        let demand: Subscribers.Demand
        if range.isEmpty || index >= range.upperBound {
            demand = .none
        } else if index < range.lowerBound {
            demand = .max(1)
        } else {
            demand = downstream.receive(input)
        }
        if let upstream {
            upstream.cancel()
            downstream.receive(completion: .finished)
        }
        return demand
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let live = state.withLock { state -> Bool in
            guard state.status.subscription != nil, !state.completed else { return false }
            state.completed = true
            return true
        }
        if live { downstream.receive(completion: completion) }
    }

    func request(_ demand: Subscribers.Demand) {
        state.withLock { $0.status.subscription }?.request(demand)
    }

    func cancel() {
        state.withLock { state -> (any Subscription)? in
            guard state.status.subscription != nil else { return nil }
            return state.status.terminate()
        }?.cancel()
    }
}

// NB: @unchecked Sendable: it only lives inside its subscriber's Mutex.
private struct OutputState: @unchecked Sendable {
    var status = SubscriptionStatus.awaiting
    /// How many values have come.
    var index = 0
    /// A completion has gone downstream (the upstream's, or the finish after the range's last value).
    var completed = false
}
